import type { Snapshot } from '../scheduling';

/** Where the cache gets the cluster from (the Kubernetes API in production). */
export interface ClusterSource {
  /** A fresh snapshot: nodes and the pods bound to them. */
  load(): Promise<Snapshot>;
}

/** A recent snapshot of the cluster for NodeNames (nodeCacheCapable) requests and for preemption. */
export interface ClusterCache {
  /**
   * The current snapshot. With `maxAgeMs`, one older than that is refreshed
   * first (single-flight), e.g. when a request names a node the snapshot
   * does not know yet.
   */
  snapshot(options?: { readonly maxAgeMs?: number }): Promise<Snapshot>;
}

export interface TtlClusterCacheOptions {
  /** How long a snapshot is served as fresh. */
  readonly ttlMs: number;
  /**
   * Stale-while-revalidate: past the TTL but younger than this, the old
   * snapshot is served at once while one refresh runs in the background.
   * Default 0 (off): every request after the TTL waits for fresh state.
   */
  readonly maxStaleMs?: number;
  /** Told about background refreshes that failed (nobody else awaits them). */
  readonly onBackgroundError?: (error: unknown) => void;
  /** Injected clock, for tests. */
  readonly now?: () => number;
}

/**
 * Serves one snapshot for `ttlMs`, then asks the source for a fresh one (the
 * Kubernetes source reads only the changes since its last refresh). A refresh
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

  snapshot(options: { readonly maxAgeMs?: number } = {}): Promise<Snapshot> {
    const current = this.current;
    if (current !== undefined) {
      const age = this.now() - current.fetchedAt;
      const freshFor = Math.min(this.options.ttlMs, options.maxAgeMs ?? Infinity);
      if (age < freshFor) return Promise.resolve(current.snapshot);
      if (options.maxAgeMs !== undefined) return this.refresh();
      if (age < this.options.ttlMs + (this.options.maxStaleMs ?? 0)) {
        this.refresh().catch((error: unknown) => this.options.onBackgroundError?.(error));
        return Promise.resolve(current.snapshot);
      }
    }
    return this.refresh();
  }

  /** Age of the snapshot being served, in ms; undefined before the first refresh. */
  ageMs(): number | undefined {
    return this.current === undefined ? undefined : this.now() - this.current.fetchedAt;
  }

  private refresh(): Promise<Snapshot> {
    this.inFlight ??= this.load().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async load(): Promise<Snapshot> {
    const startedAt = this.now();
    const snapshot = await this.source.load();
    // The age counts from when the listing started: state can only be older than that.
    this.current = { snapshot, fetchedAt: startedAt };
    return snapshot;
  }
}
