import type { KubeConnection, KubeHttpClient, KubeHttpClientOptions } from '../kube/kube-http-client';
import { createKubeHttpClient } from '../kube/kube-http-client';
import type { NodeInfo, PodInfo, Snapshot } from '../scheduling';
import { MirrorSnapshots, nodeInfoFromKubernetes, podInfoFromKubernetes } from '../scheduling';
import { metadataOf, stringField } from '../scheduling/kube-json';
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
  readonly onRelist?: (collection: 'nodes' | 'pods', reason: string) => void;
}

/**
 * Mirrors nodes and bound pods from the Kubernetes API (list and watch nodes
 * and pods is all the extender's RBAC allows) and builds a snapshot from them.
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
  const nodes = new WatchedCollection<NodeInfo>(
    {
      path: '/api/v1/nodes',
      pageSize,
      ...(options.nodeLabelSelector ? { labelSelector: options.nodeLabelSelector } : {}),
      key: nodeKey,
      reduce: nodeInfoFromKubernetes,
      protobufItem: readNode,
    },
    limits,
  );
  const pods = new WatchedCollection<PodInfo>(
    { path: '/api/v1/pods', pageSize, fieldSelector: BOUND_POD_FIELD_SELECTOR, key: podKey, reduce: podInfoFromKubernetes, protobufItem: readPod },
    limits,
  );
  const snapshots = new MirrorSnapshots();
  let built: Snapshot | undefined;
  let inFlight: Promise<Snapshot> | undefined;

  async function refresh(): Promise<Snapshot> {
    const kube = await connect();
    const [nodeSync, podSync] = await Promise.all([nodes.sync(kube), pods.sync(kube)]);
    // Both fetched: apply both at once, so a failure of either leaves both as they were.
    const nodesChanged = nodeSync.commit();
    const podsChanged = podSync.commit();
    if (nodeSync.relistReason !== undefined) options.onRelist?.('nodes', nodeSync.relistReason);
    if (podSync.relistReason !== undefined) options.onRelist?.('pods', podSync.relistReason);
    if (built === undefined || nodesChanged || podsChanged) built = snapshots.build(nodes.values(), pods.values());
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
