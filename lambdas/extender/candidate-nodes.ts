import { errorMessage } from '../common/error-message';
import type { NodeInfo } from '../scheduling';
import { nodeInfoFromKubernetes, Snapshot } from '../scheduling';
import type { ClusterCache } from '../cluster-state/cluster-cache';
import type { NodeInput } from './wire-args';

/** The nodes one extender call decides on, and the cluster state they are judged against. */
export interface Candidates {
  readonly snapshot: Snapshot;
  /** In request order; NodeNames the cache lacks are in `unknown` instead. */
  readonly nodes: NodeInfo[];
  /** Nodes mode: the request's Node objects, parallel to `nodes`. */
  readonly raw: unknown[] | undefined;
  /** NodeNames mode: names the cache does not know. */
  readonly unknown: string[];
}

export type ResolvedCandidates = { readonly ok: true; readonly value: Candidates } | { readonly ok: false; readonly error: string };

export const NO_CLUSTER_ACCESS =
  'NodeNames (nodeCacheCapable: true) needs cluster access: set KUBECONFIG or CLUSTER_NAME for the extender, or use nodeCacheCapable: false';

/** A request naming nodes the snapshot lacks refreshes it if it is older than this. */
export const UNKNOWN_NODE_REFRESH_MS = 1_000;

/**
 * A pod whose ResourceClaims the snapshot lacks refreshes it if it is older
 * than this. kube-scheduler tries a pod only once its claims exist, often
 * within milliseconds of the claim being made from its template, so a
 * snapshot from before the request usually lacks them; the bound keeps a
 * claim that is gone from turning every request into a refresh.
 */
export const UNSEEN_CLAIM_REFRESH_MS = 250;

/** How far past the expected position a name is looked for before falling back to the index. */
const LOOKAHEAD = 8;


/** Per snapshot, the nodes of the last NodeNames request in its order, and each node's position in it. */
interface LastOrder {
  readonly nodes: readonly NodeInfo[];
  readonly positions: Map<NodeInfo, number>;
}

export type CandidateResolver = (
  input: NodeInput,
  warn: (message: string, details: Readonly<Record<string, unknown>>) => void,
  /** The pod's ResourceClaims (`namespace/name`), which the snapshot must know to read what they ask (see podGpuClaimKeys). */
  claimKeys?: readonly string[],
  /** How old a snapshot may be for this pod (see snapshotFreshnessFor); the cache's TTL when unset. */
  freshness?: SnapshotFreshness,
) => Promise<ResolvedCandidates>;

/** What ClusterCache.snapshot takes: `{ maxAgeMs }` to refresh a snapshot older than that first. */
export type SnapshotFreshness = { readonly maxAgeMs?: number } | undefined;

/**
 * A pod that kube-scheduler nominated to a node (status.nominatedNodeName)
 * has preempted there, and is retried as soon as its victims are gone. A
 * snapshot from before that still holds the victims, rejects the nominated
 * node, and kube-scheduler, finding the pod unschedulable and its nominated
 * node without a terminating victim, preempts again on another node: a pod
 * evicted for nothing (test/e2e/kube-api-faults-preemption.test.ts
 * reproduced it with the 5 s TTL). Such a pod is therefore judged on a
 * snapshot refreshed for its call: one watch read, and nominated pods are
 * few.
 */
export const NOMINATED_POD_MAX_AGE_MS = 0;

export function snapshotFreshnessFor(pod: Readonly<Record<string, unknown>>): SnapshotFreshness {
  const status = pod.status;
  const nominated = typeof status === 'object' && status !== null ? (status as Record<string, unknown>).nominatedNodeName : undefined;
  return typeof nominated === 'string' && nominated !== '' ? { maxAgeMs: NOMINATED_POD_MAX_AGE_MS } : undefined;
}

/**
 * Turns a request's Nodes or NodeNames into the nodes to decide on. Full
 * Nodes are parsed and laid over the cached cluster (when there is one);
 * NodeNames are looked up in the cache, which is refreshed once when a name
 * is missing (a node that registered after the last refresh), and so is a
 * snapshot that lacks one of the pod's ResourceClaims.
 */
export function createCandidateResolver(cache: ClusterCache | undefined): CandidateResolver {
  const lastOrders = new WeakMap<Snapshot, LastOrder>();

  /** The snapshot, or a fresher one when it lacks one of the claims. */
  async function withClaims(cluster: ClusterCache, snapshot: Snapshot, claimKeys: readonly string[], warn: Parameters<CandidateResolver>[1]): Promise<Snapshot> {
    if (claimKeys.every((key) => snapshot.dra.claims.has(key))) return snapshot;
    try {
      return await cluster.snapshot({ maxAgeMs: UNSEEN_CLAIM_REFRESH_MS });
    } catch (error) {
      warn('cluster cache refresh for unseen ResourceClaims failed; deciding with the cached snapshot', { error: errorMessage(error) });
      return snapshot;
    }
  }

  return async function resolveCandidates(input, warn, claimKeys = [], freshness = undefined) {
    if (input.mode === 'Nodes') {
      let base: Snapshot | undefined;
      if (cache !== undefined) {
        try {
          base = await withClaims(cache, await cache.snapshot(freshness), claimKeys, warn);
        } catch (error) {
          // Full Node objects are enough to decide on model and memory; GPU
          // counts then come from allocatable alone (kube-scheduler still
          // checks them unless managedResources says ignoredByScheduler).
          warn('cluster cache unavailable; deciding from the request nodes alone', { error: errorMessage(error) });
        }
      }
      // A Node object does not say what GPUs its ResourceSlices hold: the cached cluster does.
      const draGpus = base?.dra.gpusByNode;
      const draGpusOf = draGpus === undefined || draGpus.size === 0 ? undefined : (name: string) => draGpus.get(name);
      const nodes: NodeInfo[] = [];
      const raw: unknown[] = [];
      for (const item of input.items) {
        const info = nodeInfoFromKubernetes(item, draGpusOf);
        if (info === undefined) continue;
        nodes.push(info);
        raw.push(item);
      }
      return { ok: true, value: { snapshot: base ? Snapshot.overlay(base, nodes) : new Snapshot(nodes), nodes, raw, unknown: [] } };
    }

    if (cache === undefined) return { ok: false, error: NO_CLUSTER_ACCESS };
    let snapshot: Snapshot;
    try {
      snapshot = await cache.snapshot(freshness);
    } catch (error) {
      return { ok: false, error: `cluster cache unavailable: ${errorMessage(error)}` };
    }
    snapshot = await withClaims(cache, snapshot, claimKeys, warn);
    let resolved = resolveNames(snapshot, input.names);
    if (resolved.unknown.length > 0) {
      // Rejecting a node that registered after the last refresh would park
      // the pod as unschedulable until some other cluster event, so list
      // again once (at most every UNKNOWN_NODE_REFRESH_MS, so names that stay
      // unknown, e.g. outside the label selector, cannot turn every request
      // into a list).
      try {
        const fresher = await cache.snapshot({ maxAgeMs: UNKNOWN_NODE_REFRESH_MS });
        if (fresher !== snapshot) {
          snapshot = fresher;
          resolved = resolveNames(snapshot, input.names);
        }
      } catch (error) {
        warn('cluster cache refresh for unknown nodes failed; deciding with the cached snapshot', { error: errorMessage(error) });
      }
    }
    return { ok: true, value: { snapshot, nodes: resolved.nodes, raw: undefined, unknown: resolved.unknown } };
  };

  /**
   * kube-scheduler sends its candidates in one stable order: /prioritize gets
   * the subsequence /filter kept, the next pod's /filter the same list
   * rotated by its start index. So each name is first compared with the few
   * nodes after the previous match in the last order, a plain string
   * comparison, and only a miss pays the hash lookup of a freshly parsed
   * string in the snapshot's name index. A node is only ever taken when its
   * name equals the requested one, so the order only changes the cost, never
   * the result.
   */
  function resolveNames(snapshot: Snapshot, names: readonly string[]): { nodes: NodeInfo[]; unknown: string[] } {
    const last = lastOrders.get(snapshot);
    const order = last?.nodes ?? [];
    // Sized for the request up front: growing by push copies them several times over at thousands of names.
    const nodes = new Array<NodeInfo>(names.length);
    let count = 0;
    const unknown: string[] = [];
    let cursor = 0;
    let misses = 0;
    for (const name of names) {
      let node: NodeInfo | undefined;
      for (let k = cursor, end = Math.min(order.length, cursor + LOOKAHEAD); k < end; k++) {
        const candidate = order[k] as NodeInfo;
        if (candidate.name === name) {
          node = candidate;
          cursor = k + 1;
          break;
        }
      }
      if (node === undefined) {
        misses++;
        node = snapshot.getNode(name);
        if (node === undefined) {
          unknown.push(name);
          continue;
        }
        const at = last?.positions.get(node);
        if (at !== undefined) cursor = at + 1;
      }
      nodes[count++] = node;
    }
    nodes.length = count;
    // Keep an order that predicted this list (a subsequence or a rotation of
    // it); replace one that did not.
    if (last === undefined || misses > names.length / 4) {
      const positions = new Map<NodeInfo, number>();
      for (let i = 0; i < nodes.length; i++) positions.set(nodes[i] as NodeInfo, i);
      lastOrders.set(snapshot, { nodes, positions });
    }
    return { nodes, unknown };
  }
}
