import { isDeepStrictEqual } from 'node:util';
import { isRecord, metadataOf, stringField } from '../scheduling/kube-json';

/** How the objects of one collection (nodes, or bound pods) are kept. */
export interface CollectionKind<T> {
  /** Identity of an object (node name, pod uid); undefined for a malformed object, which is skipped. */
  key(object: unknown): string | undefined;
  /** What is kept of an object; undefined when it holds nothing (e.g. a finished pod), so it leaves the collection. */
  reduce(object: unknown): T | undefined;
}

/**
 * The changes a watch delivered, not yet applied. Events are recorded by key
 * (the last one wins) and applied with the resourceVersion they lead to only
 * by `applyTo`, so a watch that fails halfway changes nothing.
 */
export class CollectionChanges<T> {
  private readonly changes = new Map<string, T | undefined>();
  private version: string;
  private stop: string | undefined;
  private seen = 0;

  constructor(
    private readonly kind: CollectionKind<T>,
    /** The version the watch resumes from. */
    from: string,
  ) {
    this.version = from;
  }

  /** The version the collection is at once the changes are applied. */
  get resourceVersion(): string {
    return this.version;
  }

  /** Set when the watch cannot go on from here (an ERROR event, e.g. 410 Gone): the collection must be listed afresh. */
  get relistReason(): string | undefined {
    return this.stop;
  }

  /** Watch events recorded, bookmarks included. */
  get events(): number {
    return this.seen;
  }

  /** Records one watch event; false when the watch must stop (see relistReason). */
  record(event: unknown): boolean {
    if (this.stop !== undefined) return false;
    this.seen++;
    const type = isRecord(event) ? stringField(event.type) : undefined;
    const object = isRecord(event) ? event.object : undefined;
    if (type === 'ERROR') return this.halt(`ERROR event: ${statusText(object)}`);
    const version = stringField(metadataOf(object).resourceVersion);
    // Without a version we could not say where to resume.
    if (version === undefined || version === '') return this.halt(`${type ?? 'an'} event without a resourceVersion`);
    if (type === 'BOOKMARK') {
      this.version = version;
      return true;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return this.halt(`unknown watch event type ${String(type)}`);
    const key = this.kind.key(object);
    if (key !== undefined) this.changes.set(key, type === 'DELETED' ? undefined : this.kind.reduce(object));
    this.version = version;
    return true;
  }

  /**
   * Applies the changes to `items`; returns how many entries really changed.
   * An entry equal to the one held is not replaced (a pod's status update,
   * a node's heartbeat), so callers can keep what they built from it.
   */
  applyTo(items: Map<string, T>): number {
    let changed = 0;
    for (const [key, value] of this.changes) {
      if (value === undefined) {
        if (items.delete(key)) changed++;
        continue;
      }
      const held = items.get(key);
      if (held !== undefined && isDeepStrictEqual(held, value)) continue;
      items.set(key, value);
      changed++;
    }
    return changed;
  }

  private halt(reason: string): false {
    this.stop = reason;
    return false;
  }
}

/** "410 Expired: too old resource version: 1 (2742)" from a Status object. */
function statusText(object: unknown): string {
  if (!isRecord(object)) return 'no Status object';
  const parts = [object.code, object.reason, object.message].filter((p) => typeof p === 'string' || typeof p === 'number');
  return parts.length > 0 ? parts.join(' ') : 'no detail';
}
