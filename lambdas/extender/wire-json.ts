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

/**
 * A field computed on first read and then kept, enumerable like a plain one
 * (so JSON.stringify and deep equality see it): the FailedNodes maps, which a
 * written reply never needs.
 */
export function defineLazyField<T extends object, K extends keyof T & string>(body: T, key: K, compute: () => T[K]): void {
  Object.defineProperty(body, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = compute();
      Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
  });
}

// NodeInfo objects outlive requests (a snapshot lives until the next
// refresh, and a refresh keeps the nodes that did not change), so each
// name is quoted about once per node, not once per reply.
const quotedNames = new WeakMap<NodeInfo, string>();

/** JSON.stringify(node.name), once per node. */
export function quotedNodeName(node: NodeInfo): string {
  let quoted = quotedNames.get(node);
  if (quoted === undefined) {
    quoted = JSON.stringify(node.name);
    quotedNames.set(node, quoted);
  }
  return quoted;
}
