import type { PbfReader } from 'pbf';

/**
 * Strings that repeat across the items of a list (label keys and values,
 * resource names, quantities, namespaces), decoded once: a page of 2,000
 * nodes holds a few hundred distinct label strings among more than 100,000.
 * A string met again is the same string as before, so none is made, and as
 * a property key it is already in V8's string table. The table is
 * direct-mapped and small: a slot taken by another string is overwritten,
 * so a unique string costs one probe and memory stays bounded whatever a
 * body holds.
 */
export class TextIntern {
  private readonly bytes: (Uint8Array | undefined)[];
  private readonly texts: string[];
  private readonly mask: number;

  /**
   * @param slots table size, rounded down to a power of two
   * @param maxBytes longer strings are decoded as they come (annotation values, JSON)
   */
  constructor(
    slots = 4096,
    private readonly maxBytes = 64,
  ) {
    const size = 2 ** Math.floor(Math.log2(Math.max(1, slots)));
    this.mask = size - 1;
    this.bytes = new Array<Uint8Array | undefined>(size).fill(undefined);
    this.texts = new Array<string>(size).fill('');
  }

  /**
   * The string of the length-delimited field at `pbf.pos` (its length varint
   * first), as pbf's readString decodes it; `pbf.pos` ends after it. The
   * caller checks that it ended within the body.
   */
  read(pbf: PbfReader): string {
    const start = pbf.pos;
    const length = pbf.readVarint();
    const from = pbf.pos;
    const end = from + length;
    const buf = pbf.buf;
    if (length > this.maxBytes || end > pbf.length) {
      pbf.pos = start;
      return pbf.readString();
    }
    // FNV-1a over the bytes, folded so the table's low bits see them all.
    let hash = 0x811c9dc5 ^ length;
    for (let i = from; i < end; i++) hash = Math.imul(hash ^ (buf[i] as number), 0x01000193);
    const slot = (hash ^ (hash >>> 16)) & this.mask;
    const known = this.bytes[slot];
    pbf.pos = end;
    if (known !== undefined && known.length === length && sameBytes(known, buf, from)) return this.texts[slot] as string;
    pbf.pos = start;
    const text = pbf.readString();
    // A copy: a view would keep the whole body alive.
    this.bytes[slot] = Uint8Array.prototype.slice.call(buf, from, end);
    this.texts[slot] = text;
    return text;
  }
}

function sameBytes(known: Uint8Array, buf: Uint8Array, from: number): boolean {
  for (let i = 0; i < known.length; i++) if (known[i] !== buf[from + i]) return false;
  return true;
}
