import type { KubeConnection, KubeHttpClient, KubeHttpClientOptions } from '../kube/kube-http-client';
import { createKubeHttpClient } from '../kube/kube-http-client';
import type { NodeInfo, PodInfo, Snapshot } from '../scheduling';
import { metadataOf, stringField } from '../scheduling/kube-json';
import { readNode, readPod } from '../kube/protobuf/core-v1-readers';
import type { WatchLimits } from '../kube/watch-stream';
import type { ClusterSource } from './cluster-cache';
import { DEFAULT_LIST_PAGE_SIZE } from './list-page-size';
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

/**
 * How listed Kubernetes objects become the scheduling library's model, handed
 * in by the caller (cluster-model.ts). This module is loaded on the first
 * refresh and bundled apart from the handler (cdk/lib/functions/split-build.ts),
 * so it must not hold a second copy of the library's classes: the snapshot it
 * returns is read by the handler's copy. It imports the library for types
 * only.
 */
export interface ClusterModel {
  /** A Node as the API returns it, reduced; undefined for one the extender cannot use. */
  readonly node: (object: unknown) => NodeInfo | undefined;
  /** A bound Pod, reduced; undefined for one that holds nothing. */
  readonly pod: (object: unknown) => PodInfo | undefined;
  /** A builder of one source's snapshots, made once per source: it may reuse what it built before. */
  readonly snapshots: () => SnapshotBuilder;
}

export interface SnapshotBuilder {
  /** A snapshot of the mirrored nodes with the pods bound, which later refreshes never change. */
  build(nodes: Iterable<NodeInfo>, pods: Iterable<PodInfo>): Snapshot;
}

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
 * extender's bundle and cold start small.
 */
export function kubernetesClusterSource(connection: () => Promise<KubeConnection>, model: ClusterModel, options: KubernetesClusterSourceOptions = {}): ClusterSource {
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
      reduce: model.node,
      protobufItem: readNode,
    },
    limits,
  );
  const pods = new WatchedCollection<PodInfo>(
    { path: '/api/v1/pods', pageSize, fieldSelector: BOUND_POD_FIELD_SELECTOR, key: podKey, reduce: model.pod, protobufItem: readPod },
    limits,
  );
  const snapshots = model.snapshots();
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
