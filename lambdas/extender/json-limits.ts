import { errorMessage } from '../common/error-message';

/**
 * Limits on the JSON the extender accepts, checked on the raw text before
 * JSON.parse sees it.
 *
 * Depth matters because the reply echoes request objects back (full-Nodes
 * /filter returns the kept Node objects unchanged), and JSON.stringify is
 * recursive: a 10,000-deep object inside a Node parses fine but overflows
 * the stack when the reply is serialised. Real Kubernetes Node and Pod
 * objects nest less than 20 levels (managedFields' fieldsV1 is the deepest
 * part), so 100 levels refuses nothing real and keeps every recursive walk
 * far from the stack limit.
 */
export const MAX_JSON_DEPTH = 100;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]

/**
 * The offset of the first `{` or `[` that opens level `maxDepth + 1`, or -1
 * when the text never nests deeper than `maxDepth`. Brackets inside strings
 * do not count. No allocation, and the per-character work is left to the
 * native indexOf wherever possible:
 * - A text with at most `maxDepth` opening brackets in all cannot nest
 *   deeper; counting them with indexOf settles NodeNames and preemption
 *   requests (a few dozen brackets, in the Pod) almost for free.
 * - Otherwise (full Node objects), strings, which are most of the text, are
 *   skipped with indexOf and the rest is read a char code at a time, about
 *   half the time JSON.parse takes for the same text.
 * The text need not be valid JSON; unbalanced brackets only make the count
 * wrong for text JSON.parse rejects anyway.
 */
export function jsonDepthExceeded(text: string, maxDepth: number = MAX_JSON_DEPTH): number {
  if (openingBracketsAtMost(text, maxDepth)) return -1;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i + 1);
      if (i < 0) return -1; // an unterminated string: JSON.parse reports it
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return -1;
}

/** Whether the text holds at most `limit` `{` and `[` together, strings included; stops counting past it. */
function openingBracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) if (++count > limit) return false;
  for (let at = text.indexOf('['); at >= 0; at = text.indexOf('[', at + 1)) if (++count > limit) return false;
  return true;
}

/** The offset of the quote that closes a string whose content starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at >= 0) {
    // A quote preceded by an odd run of backslashes is escaped.
    let backslashes = 0;
    for (let k = at - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

export type ParsedJson = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * JSON.parse behind the depth limit. Never throws: a syntax error, and any
 * other failure of the parser, is an error message for a 400. (V8's parser
 * is iterative today and parses 500,000 levels; a recursive one, or a
 * string past V8's length limit, throws RangeError, and that too is bad
 * input, not a crash.)
 */
export function parseJsonWithinLimits(text: string, maxDepth: number = MAX_JSON_DEPTH): ParsedJson {
  const at = jsonDepthExceeded(text, maxDepth);
  if (at >= 0) {
    return { ok: false, error: `JSON nests deeper than ${maxDepth} levels (at character ${at}); Kubernetes objects nest far less` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    if (error instanceof SyntaxError) return { ok: false, error: `malformed JSON: ${error.message}` };
    return { ok: false, error: `JSON could not be parsed: ${errorMessage(error)}` };
  }
}
