import type { PbfReader } from 'pbf';
import { TextIntern } from './text-intern';

/**
 * Wire type 2 (length-delimited): strings, bytes, messages and map entries.
 * A field we know by number but that arrives with another wire type is
 * skipped, never read as something it is not.
 */
export const LENGTH_DELIMITED = 2;

/** A protobuf input that does not decode as the message it claims to be. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/** Reads one field of a message; an unknown field is left unread and pbf skips it. */
export type FieldReader<T> = (field: number, into: T, pbf: PbfReader) => void;

/**
 * A length-delimited embedded message, checked to end where its length says:
 * pbf itself stops at the end of its buffer, so a truncated or corrupt body
 * would otherwise decode as a plausible, shorter object.
 */
export function readEmbedded<T>(pbf: PbfReader, read: FieldReader<T>, into: T): T {
  const length = pbf.readVarint();
  const end = pbf.pos + length;
  if (!Number.isSafeInteger(end) || end > pbf.length) throw new ProtobufDecodeError(`a message of ${length} bytes at offset ${pbf.pos} runs past the end of the ${pbf.length}-byte body`);
  pbf.readFields(read, into, end);
  if (pbf.pos !== end) throw new ProtobufDecodeError(`a message at offset ${end - length} ends at ${pbf.pos}, not at ${end}`);
  return into;
}

/** The string of a length-delimited field, checked to lie within the body. */
export function readText(pbf: PbfReader): string {
  const start = pbf.pos;
  return withinBody(pbf, start, pbf.readString());
}

/** One table for every list the process decodes: the same labels come back page after page, and at every relist. */
const SHARED_TEXT = new TextIntern();

/** readText for strings many items share (map keys and values, namespaces), each decoded once (text-intern.ts). */
export function readSharedText(pbf: PbfReader): string {
  const start = pbf.pos;
  return withinBody(pbf, start, SHARED_TEXT.read(pbf));
}

function withinBody(pbf: PbfReader, start: number, text: string): string {
  if (pbf.pos > pbf.length) throw new ProtobufDecodeError(`a string at offset ${start} runs past the end of the ${pbf.length}-byte body`);
  return text;
}

/**
 * Sets a map entry as JSON.parse would: an own property, also for the key
 * `__proto__` (not a valid label or resource name, but the body is not ours).
 */
function setEntry(map: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

interface Entry {
  key: string;
  value: string | undefined;
}

function readStringEntry(field: number, entry: Entry, pbf: PbfReader): void {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) entry.key = readSharedText(pbf);
  else if (field === 2) entry.value = readSharedText(pbf);
}

/** One entry of a `map<string, string>` (labels, annotations) into `map`, as the JSON form has it. */
export function readStringMapEntry(pbf: PbfReader, map: Record<string, string>): void {
  const entry = readEmbedded<Entry>(pbf, readStringEntry, { key: '', value: undefined });
  setEntry(map, entry.key, entry.value ?? '');
}

/** resource.Quantity: its one field is the canonical text, e.g. "500m" or "80Gi", which JSON carries as a plain string. */
function readQuantity(field: number, entry: Entry, pbf: PbfReader): void {
  if (field === 1 && pbf.type === LENGTH_DELIMITED) entry.value = readSharedText(pbf);
}

function readQuantityEntry(field: number, entry: Entry, pbf: PbfReader): void {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) entry.key = readSharedText(pbf);
  else if (field === 2) readEmbedded(pbf, readQuantity, entry);
}

/** One entry of a `map<string, Quantity>` (requests, capacity) into `map`, the quantity as its JSON string. */
export function readQuantityMapEntry(pbf: PbfReader, map: Record<string, string>): void {
  const entry = readEmbedded<Entry>(pbf, readQuantityEntry, { key: '', value: undefined });
  // A quantity without its text is the zero quantity, which JSON writes as "0".
  setEntry(map, entry.key, entry.value ?? '0');
}
