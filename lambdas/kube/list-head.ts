import { isRecord } from '../scheduling/kube-json';

/**
 * A list's continue token read from the first bytes of its JSON body, before
 * the rest has arrived. kube-apiserver writes `kind`, `apiVersion` and
 * `metadata` (with `continue`) before `items`, so the next page can be asked
 * for while this one, megabytes at 2,000 pods, is still being received and
 * parsed. Anything else (items first, an unexpected shape) is "unknown" and
 * the caller takes the token from the whole parsed body instead.
 */
export type ListHead =
  /** Not enough bytes yet to tell. */
  | { readonly state: 'more' }
  /** The head does not say (or not in a form we trust): wait for the whole body. */
  | { readonly state: 'unknown' }
  /** The token (undefined: this is the last page). */
  | { readonly state: 'known'; readonly continueToken: string | undefined };

const ITEMS_KEY = '"items":';

export function listHeadOf(head: string): ListHead {
  const at = head.indexOf(ITEMS_KEY);
  if (at < 0) return { state: 'more' };
  // Everything before "items" is a complete object once closed; a cut inside a string or a nested value fails to parse.
  const before = head.slice(0, at).trimEnd();
  const prefix = before.endsWith(',') ? before.slice(0, -1) : before;
  let parsed: unknown;
  try {
    parsed = JSON.parse(`${prefix}}`);
  } catch {
    return { state: 'unknown' };
  }
  if (!isRecord(parsed) || !isRecord(parsed.metadata)) return { state: 'unknown' };
  const token = parsed.metadata.continue;
  if (token !== undefined && typeof token !== 'string') return { state: 'unknown' };
  return { state: 'known', continueToken: token === '' ? undefined : token };
}
