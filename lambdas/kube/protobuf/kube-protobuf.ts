import { PbfReader } from 'pbf';
import type { ListHead } from '../list-head';
import type { FieldReader } from './protobuf-fields';
import { LENGTH_DELIMITED, ProtobufDecodeError, readEmbedded, readText } from './protobuf-fields';

export { ProtobufDecodeError } from './protobuf-fields';

/**
 * kube-apiserver's protobuf encoding of built-in types: the magic bytes
 * "k8s\0", then a runtime.Unknown whose `raw` (field 2) is the object's own
 * message. Lists are about two thirds of their JSON size and the API server
 * encodes them in half the time; decoding only the fields we read skips the
 * rest (managedFields, images, conditions' timestamps) by length, unparsed.
 * See k8s.io/apimachinery/pkg/runtime/serializer/protobuf.
 */
export const KUBE_PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Reads one list item (an embedded message) into its JSON shape, holding only the fields the caller uses. */
export type ProtobufItemReader = (pbf: PbfReader) => unknown;

export interface DecodedList {
  readonly items: unknown[];
  readonly continueToken: string | undefined;
  readonly resourceVersion: string | undefined;
}

export function isKubeProtobuf(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]?.trim().toLowerCase() === KUBE_PROTOBUF_CONTENT_TYPE;
}

function hasMagic(body: Uint8Array): boolean {
  return MAGIC.every((byte, i) => body[i] === byte);
}

interface Envelope {
  rawStart: number;
  rawEnd: number;
}

function readEnvelopeField(field: number, envelope: Envelope, pbf: PbfReader): void {
  if (field !== 2 || pbf.type !== LENGTH_DELIMITED) return;
  const length = pbf.readVarint();
  envelope.rawStart = pbf.pos;
  envelope.rawEnd = pbf.pos + length;
  pbf.pos = envelope.rawEnd;
}

/** A reader over the object inside the envelope, or a clear error. */
function openObject(body: Uint8Array, what: string): PbfReader {
  if (!hasMagic(body)) throw new ProtobufDecodeError(`${what} does not start with kube-apiserver's protobuf magic "k8s\\0"`);
  const envelope = new PbfReader(body.subarray(MAGIC.length));
  const found = envelope.readFields(readEnvelopeField, { rawStart: -1, rawEnd: -1 });
  if (found.rawStart < 0) throw new ProtobufDecodeError(`${what} has no object in its envelope (runtime.Unknown without raw)`);
  if (found.rawEnd > envelope.length) throw new ProtobufDecodeError(`${what} is cut short: its object needs ${found.rawEnd - found.rawStart} bytes, ${envelope.length - found.rawStart} arrived`);
  return new PbfReader(envelope.buf.subarray(found.rawStart, found.rawEnd));
}

interface ListMeta {
  resourceVersion?: string;
  continueToken?: string;
}

/** metav1.ListMeta: resourceVersion = 2, continue = 3. */
function readListMeta(field: number, meta: ListMeta, pbf: PbfReader): void {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 2) meta.resourceVersion = readText(pbf);
  else if (field === 3) meta.continueToken = readText(pbf);
}

interface ListBody {
  meta: ListMeta;
  items: unknown[];
  readItem: ProtobufItemReader;
}

/** Every core/v1 list (PodList, NodeList, ...): metadata = 1, items = 2. */
const readListField: FieldReader<ListBody> = (field, list, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) readEmbedded(pbf, readListMeta, list.meta);
  else if (field === 2) list.items.push(list.readItem(pbf));
};

/** A protobuf list body into the items (as `readItem` shapes them), the continue token and the list's version. */
export function decodeKubeList(body: Uint8Array, readItem: ProtobufItemReader, what = 'the list'): DecodedList {
  const list: ListBody = { meta: {}, items: [], readItem };
  let pbf: PbfReader | undefined;
  try {
    pbf = openObject(body, what);
    pbf.readFields(readListField, list);
  } catch (error) {
    // pbf's own errors (a varint over 10 bytes, a group wire type) are as much a corrupt body as ours.
    const message = error instanceof Error ? error.message : String(error);
    if (pbf === undefined) throw error instanceof ProtobufDecodeError ? error : new ProtobufDecodeError(`${what}: ${message}`);
    throw new ProtobufDecodeError(`${what} item ${list.items.length}: ${message}`);
  }
  const { continueToken, resourceVersion } = list.meta;
  return {
    items: list.items,
    continueToken: continueToken === undefined || continueToken === '' ? undefined : continueToken,
    resourceVersion: resourceVersion === undefined || resourceVersion === '' ? undefined : resourceVersion,
  };
}

/**
 * The continue token from the first bytes of a protobuf list, as listHeadOf
 * does for JSON: the API server writes fields in number order, so the
 * envelope's TypeMeta, then the list's ListMeta come before any item.
 */
export function protobufListHeadOf(head: Uint8Array): ListHead {
  if (head.length < MAGIC.length) return { state: 'more' };
  if (!hasMagic(head)) return { state: 'unknown' };
  try {
    const envelope = new PbfReader(head.subarray(MAGIC.length));
    // Field 1 (TypeMeta) is optional; whatever precedes raw is skipped by length.
    let field = nextField(envelope);
    while (field !== undefined && field !== 2) {
      if (field < 0 || (envelope.type === LENGTH_DELIMITED && !varintComplete(envelope))) return { state: 'more' };
      envelope.skip(envelope.type);
      if (envelope.pos > envelope.length) return { state: 'more' };
      field = nextField(envelope);
    }
    if (field === undefined) return { state: 'more' };
    if (envelope.type !== LENGTH_DELIMITED) return { state: 'unknown' };
    if (!varintComplete(envelope)) return { state: 'more' };
    envelope.readVarint();
    // Inside the list: the first field must be its metadata, else the head does not tell (an empty ListMeta is omitted).
    const list = nextField(envelope);
    if (list === undefined || list < 0) return { state: 'more' };
    if (list !== 1 || envelope.type !== LENGTH_DELIMITED) return { state: 'unknown' };
    if (!varintComplete(envelope)) return { state: 'more' };
    const length = envelope.readVarint();
    if (envelope.pos + length > envelope.length) return { state: 'more' };
    const meta = envelope.readFields(readListMeta, {} as ListMeta, envelope.pos + length);
    const token = meta.continueToken;
    return { state: 'known', continueToken: token === undefined || token === '' ? undefined : token };
  } catch {
    return { state: 'unknown' };
  }
}

/** The next field's number, -1 when its tag is not all there yet, undefined at the end of the bytes. */
function nextField(pbf: PbfReader): number | undefined {
  if (pbf.pos >= pbf.length) return undefined;
  if (!varintComplete(pbf)) return -1;
  const tag = pbf.readVarint();
  pbf.type = tag & 0x7;
  return tag >>> 3;
}

function varintComplete(pbf: PbfReader): boolean {
  for (let i = pbf.pos; i < pbf.length && i < pbf.pos + 10; i++) if ((pbf.buf[i] ?? 0) < 0x80) return true;
  return false;
}

interface StatusFields {
  message?: string;
  reason?: string;
}

/** metav1.Status: message = 3, reason = 4. */
function readStatus(field: number, status: StatusFields, pbf: PbfReader): void {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 3) status.message = readText(pbf);
  else if (field === 4) status.reason = readText(pbf);
}

/** The message and reason of an error answer in protobuf (a metav1.Status), or undefined when it is not one. */
export function decodeKubeStatus(body: Uint8Array): StatusFields | undefined {
  try {
    return openObject(body, 'the error body').readFields(readStatus, {});
  } catch {
    return undefined;
  }
}
