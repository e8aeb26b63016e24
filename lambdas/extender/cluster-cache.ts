import type { Snapshot } from '../scheduling';
import { snapshotFromKubernetes } from '../scheduling';

/** Raw cluster state: Kubernetes Node objects and the pods bound to them. */
export interface ClusterState {
  readonly nodes: readonly unknown[];
  readonly pods: readonly unknown[];
}

/** Where the cache gets cluster state from (the Kubernetes API in production). */
export interface ClusterSource {
  list(): Promise<ClusterState>;
}

/** A recent snapshot of the cluster for NodeNames (nodeCacheCapable) requests and for preemption. */
export interface ClusterCache {
  snapshot(): Promise<Snapshot>;
}

export interface TtlClusterCacheOptions {
  /** How long a snapshot is served before the next request refreshes it. */
  readonly ttlMs: number;
  /** Injected clock, for tests. */
  readonly now?: () => number;
}

/**
 * Serves one snapshot for `ttlMs`, then rebuilds it from the source. A refresh
 * is single-flight: concurrent requests during a refresh share it. A failed
 * refresh is not cached, so the next request tries again; requests never see
 * a half-built snapshot.
 */
export class TtlClusterCache implements ClusterCache {
  private current: { snapshot: Snapshot; fetchedAt: number } | undefined;
  private inFlight: Promise<Snapshot> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly source: ClusterSource,
    private readonly options: TtlClusterCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  snapshot(): Promise<Snapshot> {
    const current = this.current;
    if (current !== undefined && this.now() - current.fetchedAt < this.options.ttlMs) return Promise.resolve(current.snapshot);
    this.inFlight ??= this.refresh().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Age of the snapshot being served, in ms; undefined before the first refresh. */
  ageMs(): number | undefined {
    return this.current === undefined ? undefined : this.now() - this.current.fetchedAt;
  }

  private async refresh(): Promise<Snapshot> {
    const startedAt = this.now();
    const state = await this.source.list();
    const snapshot = snapshotFromKubernetes(state.nodes, state.pods);
    // The age counts from when the listing started: state can only be older than that.
    this.current = { snapshot, fetchedAt: startedAt };
    return snapshot;
  }
}
