import { isDeepStrictEqual } from 'node:util';
import type { KubeConnection, KubeHttpClient, KubeHttpClientOptions } from '../kube/kube-http-client';
import { createKubeHttpClient } from '../kube/kube-http-client';
import type { DraGpuSlice, DraInventory, DraNodeGpus, GpuClaim, HealthCondition, NodeInfo, PodInfo, Snapshot } from '../scheduling';
import {
  HEALTH_CONDITIONS,
  readHealthConditions,
  draGpusByNode,
  draGpuSliceFromKubernetes,
  GPU_RESOURCE,
  gpuClaimFromKubernetes,
  MirrorSnapshots,
  NO_DRA,
  nodeInfoFromKubernetes,
  NVIDIA_DRA_SLICE_FIELD_SELECTOR,
  podInfoFromKubernetes,
} from '../scheduling';
import { isRecord, metadataOf, stringField, stringMap } from '../scheduling/kube-json';
import { kubeStatusCode } from '../kube/kube-errors';
import type { CollectionSync } from './watched-collection';
import { readNode, readPod } from '../kube/protobuf/core-v1-readers';
import type { WatchLimits } from '../kube/watch-stream';
import type { ClusterSource } from './cluster-cache';
import { WatchedCollection } from './watched-collection';

/**
 * Only pods that hold resources: bound to a node and not finished. The API
 * server evaluates this, so a 50,000-pod cluster does not ship its completed
 * jobs to the Lambda.
 */
export const BOUND_POD_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

/**
 * A refresh reads each watch until it has caught up: the API server sends the
 * backlog since our version at once (from its watch cache, computed before
 * the response starts), so 50 ms without an event means it is drained even on
 * a loaded server, and costs a waiting request little. Under constant churn
 * the stream is never idle, so it is closed after 1 s. Either way what was
 * read is a prefix of the history, and an event that arrives after we close
 * is not lost: the next refresh resumes from the last version read.
 */
export const DEFAULT_WATCH_LIMITS: WatchLimits = { idleMs: 50, maxMs: 1000 };

/** NVIDIA's ResourceSlices only: the API server filters by driver, so other drivers' slices never reach the Lambda. */
export const RESOURCE_SLICES_PATH = '/apis/resource.k8s.io/v1/resourceslices';
export const RESOURCE_SLICE_FIELD_SELECTOR = NVIDIA_DRA_SLICE_FIELD_SELECTOR;

/**
 * All ResourceClaims (no field selector can pick the GPU ones); each is
 * reduced to its NVIDIA GPUs as it arrives and the others are dropped (see
 * gpuClaimFromKubernetes), so only GPU claims are held.
 */
export const RESOURCE_CLAIMS_PATH = '/apis/resource.k8s.io/v1/resourceclaims';

/**
 * A cluster that does not serve resource.k8s.io/v1 (404) has no DRA GPUs;
 * it is asked again after this long, since serving the group is a
 * control-plane setting that changes with an upgrade, not from one request
 * to the next.
 */
export const DRA_ABSENT_RECHECK_MS = 10 * 60_000;

/** Items per list call unless the caller says otherwise (the extender: EXTENDER_LIST_PAGE_SIZE); bigger pages mean fewer round trips at 50,000 pods. */
export const DEFAULT_LIST_PAGE_SIZE = 2000;

export interface KubernetesClusterSourceOptions {
  /** Limits the nodes listed (e.g. only GPU nodes); all nodes when unset. */
  readonly nodeLabelSelector?: string;
  /**
   * Items per list call; bigger pages mean fewer round trips at 50,000 pods.
   * @default DEFAULT_LIST_PAGE_SIZE (2000)
   */
  readonly pageSize?: number;
  /** Timeout, response-size limit and the onResponse counter hook, per API call. */
  readonly http?: KubeHttpClientOptions;
  /** When a refresh stops reading a watch (see DEFAULT_WATCH_LIMITS). */
  readonly watch?: WatchLimits;
  /** Told when a watch could not resume and a collection was listed again: at 50,000 pods, a cost worth a log line. */
  readonly onRelist?: (collection: 'nodes' | 'pods' | 'resourceslices' | 'resourceclaims', reason: string) => void;
  /** Injected clock, for tests (when to ask again for a group the API server did not serve). */
  readonly now?: () => number;
}

/**
 * A node as mirrored: its NodeInfo as the Node object alone gives it, and,
 * when the device plugin hands out no nvidia.com/gpu there, its allocatable
 * and its health conditions, so the NodeInfo can be read again against the
 * node's ResourceSlices.
 */
interface MirroredNode {
  readonly info: NodeInfo;
  readonly allocatable: Readonly<Record<string, string>> | undefined;
  /** The agent's conditions (only those: the rest of a Node's status is not kept), for a node read again against its slices. */
  readonly conditions: readonly HealthCondition[];
}

function mirrorNode(node: unknown): MirroredNode | undefined {
  const info = nodeInfoFromKubernetes(node);
  if (info === undefined) return undefined;
  const status = isRecord(node) && isRecord(node.status) ? node.status : undefined;
  const allocatable = stringMap(status?.allocatable ?? status?.capacity);
  if (allocatable[GPU_RESOURCE] !== undefined) return { info, allocatable: undefined, conditions: [] };
  return { info, allocatable, conditions: readHealthConditions(status?.conditions, HEALTH_CONDITIONS) };
}

/**
 * Mirrors nodes, bound pods and NVIDIA's ResourceSlices from the Kubernetes
 * API (list and watch of those three is all the extender's RBAC allows) and
 * builds a snapshot from them; a cluster that does not serve
 * resource.k8s.io/v1 simply has no DRA GPUs (DRA_ABSENT_RECHECK_MS).
 * The first load lists; every later one asks only for the changes since
 * (WatchedCollection), so a refresh costs what changed, not the cluster.
 * Objects are reduced to the library's slim NodeInfo/PodInfo as they arrive,
 * so the full API objects of a big cluster are never all in memory at once.
 * The connection comes from a factory so it is resolved lazily
 * (DescribeCluster, when the endpoint is not in the environment, on first
 * use) and a failure surfaces as a failed refresh, not a failed cold start.
 * It uses the small read-only HTTP client, not client-node, to keep the
 * extender's bundle and cold start small. Each source has its own
 * MirrorSnapshots: the mirrored NodeInfos hold no pods, each snapshot binds
 * the pods to copies (made again only for the nodes that changed), so a
 * snapshot being served is never changed by a later refresh.
 */
export function kubernetesClusterSource(connection: () => Promise<KubeConnection>, options: KubernetesClusterSourceOptions = {}): ClusterSource {
  let client: Promise<KubeHttpClient> | undefined;
  const connect = () => {
    if (client === undefined) {
      const pending = connection().then((c) => createKubeHttpClient(c, options.http));
      // A failed connection (e.g. DescribeCluster throttled) is retried on the next refresh.
      pending.catch(() => {
        if (client === pending) client = undefined;
      });
      client = pending;
    }
    return client;
  };
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
  const limits = options.watch ?? DEFAULT_WATCH_LIMITS;
  const now = options.now ?? Date.now;
  const nodes = new WatchedCollection<MirroredNode>(
    {
      path: '/api/v1/nodes',
      pageSize,
      ...(options.nodeLabelSelector ? { labelSelector: options.nodeLabelSelector } : {}),
      key: nodeKey,
      reduce: mirrorNode,
      protobufItem: readNode,
    },
    limits,
  );
  const pods = new WatchedCollection<PodInfo>(
    { path: '/api/v1/pods', pageSize, fieldSelector: BOUND_POD_FIELD_SELECTOR, key: podKey, reduce: podInfoFromKubernetes, protobufItem: readPod },
    limits,
  );
  const sliceCollection = () =>
    new WatchedCollection<DraGpuSlice>(
      { path: RESOURCE_SLICES_PATH, pageSize, fieldSelector: RESOURCE_SLICE_FIELD_SELECTOR, key: sliceKey, reduce: draGpuSliceFromKubernetes },
      limits,
    );
  const claimCollection = () =>
    new WatchedCollection<GpuClaim>({ path: RESOURCE_CLAIMS_PATH, pageSize, key: claimKey, reduce: gpuClaimFromKubernetes }, limits);
  let slices = sliceCollection();
  let claims = claimCollection();
  /** Until when resource.k8s.io/v1 counts as not served (it answered 404). */
  let draAbsentUntil = Number.NEGATIVE_INFINITY;
  let dra: DraInventory = NO_DRA;
  /** Per mirrored node with DRA GPUs, the NodeInfo read against them, made again only when either changes. */
  let withDra = new WeakMap<MirroredNode, { readonly dra: DraNodeGpus; readonly info: NodeInfo }>();
  const snapshots = new MirrorSnapshots();
  let built: Snapshot | undefined;
  let inFlight: Promise<Snapshot> | undefined;

  /**
   * The slices' and claims' changes, nothing when the group is known absent;
   * a 404 from either empties both (the group is gone).
   */
  async function syncDra(kube: KubeHttpClient): Promise<readonly CollectionSync[] | undefined> {
    if (now() < draAbsentUntil) return undefined;
    try {
      return await Promise.all([slices.sync(kube), claims.sync(kube)]);
    } catch (error) {
      if (kubeStatusCode(error) !== 404) throw error;
      const gone: CollectionSync = {
        how: 'listed',
        commit: () => {
          draAbsentUntil = now() + DRA_ABSENT_RECHECK_MS;
          const had = slices.size > 0 || claims.size > 0;
          slices = sliceCollection();
          claims = claimCollection();
          return had;
        },
      };
      return [gone];
    }
  }

  function nodeInfos(): NodeInfo[] {
    const infos: NodeInfo[] = [];
    const next = new WeakMap<MirroredNode, { readonly dra: DraNodeGpus; readonly info: NodeInfo }>();
    for (const node of nodes.values()) {
      const gpus = node.allocatable === undefined ? undefined : dra.gpusByNode.get(node.info.name);
      if (gpus === undefined) {
        infos.push(node.info);
        continue;
      }
      let held = withDra.get(node);
      if (held === undefined || !isDeepStrictEqual(held.dra, gpus)) {
        const { name, labels, annotations } = node.info;
        const status = { allocatable: node.allocatable, conditions: node.conditions };
        const info = nodeInfoFromKubernetes({ metadata: { name, labels, annotations }, status }, () => gpus) ?? node.info;
        held = { dra: gpus, info };
      }
      next.set(node, held);
      infos.push(held.info);
    }
    withDra = next;
    return infos;
  }

  async function refresh(): Promise<Snapshot> {
    const kube = await connect();
    const [nodeSync, podSync, draSyncs] = await Promise.all([nodes.sync(kube), pods.sync(kube), syncDra(kube)]);
    // All fetched: apply them at once, so a failure of any leaves all as they were.
    const nodesChanged = nodeSync.commit();
    const podsChanged = podSync.commit();
    let draChanged = false;
    // Both commits run: each applies its own collection's changes.
    if (draSyncs?.map((sync) => sync.commit()).includes(true) === true) {
      const claimsByKey = new Map<string, GpuClaim>();
      for (const claim of claims.values()) claimsByKey.set(claim.key, claim);
      const next: DraInventory = { gpusByNode: draGpusByNode(slices.values(), claimsByKey.values()), claims: claimsByKey };
      draChanged = !isDeepStrictEqual(next, dra);
      dra = next;
    }
    if (nodeSync.relistReason !== undefined) options.onRelist?.('nodes', nodeSync.relistReason);
    if (podSync.relistReason !== undefined) options.onRelist?.('pods', podSync.relistReason);
    const [sliceSync, claimSync] = draSyncs?.length === 2 ? draSyncs : [];
    if (sliceSync?.relistReason !== undefined) options.onRelist?.('resourceslices', sliceSync.relistReason);
    if (claimSync?.relistReason !== undefined) options.onRelist?.('resourceclaims', claimSync.relistReason);
    if (built === undefined || nodesChanged || podsChanged || draChanged) built = snapshots.build(nodeInfos(), pods.values(), dra);
    return built;
  }

  return {
    load(): Promise<Snapshot> {
      // Two syncs from the same version must not both commit: the later could apply an older prefix of the history.
      inFlight ??= refresh().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

function sliceKey(slice: unknown): string | undefined {
  const name = stringField(metadataOf(slice).name);
  return name === '' ? undefined : name;
}

function claimKey(claim: unknown): string | undefined {
  const metadata = metadataOf(claim);
  const name = stringField(metadata.name);
  return name === undefined || name === '' ? undefined : `${stringField(metadata.namespace) ?? 'default'}/${name}`;
}

function nodeKey(node: unknown): string | undefined {
  const name = stringField(metadataOf(node).name);
  return name === '' ? undefined : name;
}

/** The same identity podInfoFromKubernetes gives a PodInfo, also for a DELETED pod it no longer reduces. */
function podKey(pod: unknown): string | undefined {
  const metadata = metadataOf(pod);
  const uid = stringField(metadata.uid);
  if (uid !== undefined && uid !== '') return uid;
  const name = stringField(metadata.name);
  return name === undefined ? undefined : `${stringField(metadata.namespace) ?? 'default'}/${name}`;
}
