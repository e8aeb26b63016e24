import type { NodeInfo } from '../scheduling';

/**
 * The JSON text of the extender's big replies (a NodeNames /filter, a
 * /prioritize), written from pieces quoted once instead of by JSON.stringify
 * over a reply object. At 5,000 nodes JSON.stringify of a /filter reply took
 * about 1.1 ms and building its FailedNodes maps (thousands of keys, so V8
 * dictionary objects) another 0.4 ms, of a 5 ms filter + prioritize; joining
 * node names quoted once per node takes about half of the first and none of
 * the second (npm run bench, "Extender filter+prioritize").
 *
 * The reply objects stay what callers and tests read: a written body carries
 * its writer under a symbol that JSON.stringify, key listing and equality
 * ignore, and hosts send `wireText(body)`, which JSON.parse reads back as the
 * same value JSON.stringify(body) gives.
 */
const WRITER = Symbol('extender reply writer');

interface Written {
  readonly [WRITER]?: () => string;
}

/** The JSON text to send for a reply body: its writer's when it has one, else JSON.stringify's. */
export function wireText(body: unknown): string {
  const write = typeof body === 'object' && body !== null ? (body as Written)[WRITER] : undefined;
  return write === undefined ? JSON.stringify(body) : write();
}

/** Gives `body` the writer of its JSON text (not enumerable: invisible to JSON.stringify and deep equality). */
export function withWriter<T extends object>(body: T, write: () => string): T {
  Object.defineProperty(body, WRITER, { value: write, enumerable: false });
  return body;
}

const LAZY = Symbol('extender reply lazy fields');

type LazyComputes = Record<string, () => unknown>;

interface WithLazy {
  readonly [LAZY]?: LazyComputes;
}

/** One getter per field name, shared by every reply (see defineLazyField). */
const lazyGetters = new Map<string, (this: WithLazy) => unknown>();

function lazyGetter(key: string): (this: WithLazy) => unknown {
  let getter = lazyGetters.get(key);
  if (getter === undefined) {
    getter = function (this: WithLazy): unknown {
      const compute = this[LAZY]?.[key];
      const value = compute === undefined ? undefined : compute();
      Object.defineProperty(this, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    };
    lazyGetters.set(key, getter);
  }
  return getter;
}

/**
 * A field computed on first read and then kept, enumerable like a plain one
 * (so JSON.stringify and deep equality see it): the FailedNodes maps, which a
 * written reply never needs.
 *
 * The getter is one function per field name, shared by all replies, and the
 * reply's own compute sits in a data property. A getter made per reply (a
 * closure over its verdict) is kept by the hidden class V8 gives the object,
 * and hidden classes live in the old generation: every reply's verdict — the
 * request's node names, the resolved nodes — then survived the young
 * generation's collections, was copied and promoted, and waited for a full
 * collection. At 1,000 nodes that was about 78 KB promoted and 155 µs of
 * scavenging per /filter (docs/benchmarks.md).
 */
export function defineLazyField<T extends object, K extends keyof T & string>(body: T, key: K, compute: () => T[K]): void {
  let computes = (body as WithLazy)[LAZY];
  if (computes === undefined) {
    computes = {};
    Object.defineProperty(body, LAZY, { value: computes, enumerable: false });
  }
  computes[key] = compute;
  Object.defineProperty(body, key, { enumerable: true, configurable: true, get: lazyGetter(key) });
}

/**
 * The nodes of a NodeNames request, resolved, with the request's own string
 * for each (parallel arrays, request order). A reply echoes those strings:
 * they were parsed moments ago, side by side in memory, where each node's
 * own name string (or a table of quoted ones) sits wherever the heap put it
 * when the cluster was listed, one cache miss per node at thousands of
 * nodes. They are the same text: a name resolves only to the node of that
 * name.
 */
export interface RequestedNodes {
  readonly nodes: readonly NodeInfo[];
  readonly names: readonly string[];
  /** No name needs a JSON escape (NodeInput.plain): the writer puts them between quotes as they are. */
  readonly plain: boolean;
}

/**
 * The request's string for each node of `subset`, a subsequence of
 * `requested.nodes` in the same order (a filter's kept nodes, a group of its
 * rejected ones): matched by identity along one walk, so no node is read. A
 * node not found further along (a caller's bug, never the verbs') falls back
 * to its own name, as does everything after it.
 */
export function requestedNamesOf(requested: RequestedNodes, subset: readonly NodeInfo[]): string[] {
  const { nodes, names } = requested;
  const out = new Array<string>(subset.length);
  let at = 0;
  for (let j = 0; j < subset.length; j++) {
    const node = subset[j] as NodeInfo;
    while (at < nodes.length && nodes[at] !== node) at++;
    out[j] = at < nodes.length ? (names[at] as string) : node.name;
    at++;
  }
  return out;
}

/** Whether JSON.stringify escapes something in `text`: a quote, a backslash, a control character or a lone surrogate (ES2019 well-formed stringify). */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Any surrogate counts (a pair too): JSON.stringify then decides, which is only slower.
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/**
 * JSON.stringify(text) without its quotes, so a writer can put the quotes in
 * the pieces around it (one piece per name instead of three). Node names
 * are DNS names in a real cluster, which need no escape: the common case is
 * the string itself. Writers skip even this scan for the names of a request
 * whose text holds no escape (stringsNeedNoEscape in json-limits.ts).
 */
export function jsonStringContent(text: string): string {
  return needsEscape(text) ? JSON.stringify(text).slice(1, -1) : text;
}
