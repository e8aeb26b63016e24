import type { KubeHttpClient } from '../kube/kube-http-client';
import type { PbfReader } from 'pbf';
import type { ProtobufItemReader } from '../kube/protobuf/kube-protobuf';
import { kubeStatusCode } from '../kube/kube-errors';
import type { WatchLimits } from '../kube/watch-stream';
import type { CollectionKind } from './collection-changes';
import { CollectionChanges } from './collection-changes';

export interface CollectionQuery<T> extends CollectionKind<T> {
  /** e.g. `/api/v1/pods`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Items per list call. */
  readonly pageSize: number;
  /** Lists in protobuf, each item read by this into the JSON shape `key` and `reduce` take (watches stay JSON: they carry a few objects). */
  readonly protobufItem?: ProtobufItemReader;
}

/** What one sync fetched, not yet applied. */
export interface CollectionSync {
  /** listed: a full list (the first, or after the watch could not resume); watched: the changes since the last version. */
  readonly how: 'listed' | 'watched';
  /** Why a watch gave way to a list. */
  readonly relistReason?: string;
  /** Applies what was fetched, items and version together; true when the items changed. */
  commit(): boolean;
}

/** A collection at a known version, e.g. to resume from a version the API server no longer has (tests). */
export interface CollectionStart<T> {
  readonly items: ReadonlyMap<string, T>;
  readonly resourceVersion: string;
}

/** What a protobuf page holds in place of each item once it was reduced while decoding. */
const ADDED: unique symbol = Symbol('reduced while decoded');

/**
 * One Kubernetes collection mirrored by key: a paginated list first, then
 * watches from the last version seen, each read only until it has caught up
 * (see WatchLimits) and then closed, because a Lambda container is frozen
 * between invocations and must not count on a long-lived stream. A watch
 * that cannot resume (410 Gone, an ERROR event) falls back to a full list.
 * Nothing is applied until `commit`: a failed sync leaves the previous state.
 */
export class WatchedCollection<T> {
  private items = new Map<string, T>();
  private version: string | undefined;

  constructor(
    private readonly query: CollectionQuery<T>,
    private readonly limits: WatchLimits,
    start?: CollectionStart<T>,
  ) {
    if (start !== undefined) {
      this.items = new Map(start.items);
      this.version = start.resourceVersion;
    }
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  get size(): number {
    return this.items.size;
  }

  get resourceVersion(): string | undefined {
    return this.version;
  }

  async sync(kube: KubeHttpClient): Promise<CollectionSync> {
    const from = this.version;
    if (from === undefined) return this.list(kube);
    const changes = new CollectionChanges(this.query, from);
    try {
      await kube.watch(
        this.query.path,
        {
          resourceVersion: from,
          ...this.selectors(),
          // The API server ends the watch itself soon after we would: a container frozen mid-watch
          // must not hold a watcher there for the default 30 to 60 minutes.
          timeoutSeconds: Math.ceil(this.limits.maxMs / 1000) + 1,
        },
        (event) => changes.record(event),
        this.limits,
      );
    } catch (error) {
      if (kubeStatusCode(error) === 410) return this.list(kube, `410 Gone: ${(error as Error).message}`);
      throw error;
    }
    const reason = changes.relistReason;
    if (reason !== undefined) return this.list(kube, reason);
    return {
      how: 'watched',
      commit: () => {
        const changed = changes.applyTo(this.items) > 0;
        this.version = changes.resourceVersion;
        return changed;
      },
    };
  }

  private async list(kube: KubeHttpClient, relistReason?: string): Promise<CollectionSync> {
    const items = new Map<string, T>();
    let version: string | undefined;
    const { pageSize, protobufItem } = this.query;
    const add = (object: unknown): void => {
      const key = this.query.key(object);
      const value = key === undefined ? undefined : this.query.reduce(object);
      if (key !== undefined && value !== undefined) items.set(key, value);
    };
    // A protobuf item is reduced as soon as it is decoded, so a page's 2,000
    // objects in their JSON shape are never alive together: a scavenge during
    // the page would copy all of them. A server that answers JSON instead
    // gives the parsed objects, reduced below.
    const reduceWhileDecoding = (pbf: PbfReader): typeof ADDED => {
      add(protobufItem?.(pbf));
      return ADDED;
    };
    const reading = protobufItem === undefined ? {} : { protobufItem: reduceWhileDecoding };
    for await (const page of kube.listPages(this.query.path, { limit: pageSize, ...this.selectors(), ...reading })) {
      // Every page of a paginated list is served at the first page's version.
      version ??= page.resourceVersion;
      for (const object of page.items) if (object !== ADDED) add(object);
    }
    return {
      how: 'listed',
      ...(relistReason === undefined ? {} : { relistReason }),
      commit: () => {
        this.items = items;
        // No version (a server that sends none): the next sync lists again.
        this.version = version;
        return true;
      },
    };
  }

  private selectors(): { labelSelector?: string; fieldSelector?: string } {
    const { labelSelector, fieldSelector } = this.query;
    return { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
  }
}
