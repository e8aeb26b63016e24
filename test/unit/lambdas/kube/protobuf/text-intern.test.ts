import fc from 'fast-check';
import { PbfReader, PbfWriter } from 'pbf';
import { describe, expect, it } from 'vitest';
import { TextIntern } from '../../../../../lambdas/kube/protobuf/text-intern';

/** The strings as consecutive length-delimited fields (tag, length, bytes), a reader at the first one's length. */
function encoded(texts: readonly string[]): Buffer {
  const pbf = new PbfWriter();
  for (const text of texts) pbf.writeStringField(1, text);
  return Buffer.from(pbf.finish());
}

function readAll(intern: TextIntern, body: Uint8Array, count: number): string[] {
  const pbf = new PbfReader(body);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    pbf.readVarint(); // the field's tag
    out.push(intern.read(pbf));
  }
  expect(pbf.pos).toBe(body.length);
  return out;
}

function readPlain(body: Uint8Array, count: number): string[] {
  const pbf = new PbfReader(body);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    pbf.readVarint();
    out.push(pbf.readString());
  }
  return out;
}

describe('TextIntern', () => {
  it('decodes every string as pbf does, whatever the table size, collisions and bytes (UTF-8, invalid sequences, long strings)', () => {
    const text = fc.oneof(
      fc.constantFrom('nvidia.com/gpu', 'topology.kubernetes.io/zone', 'us-east-1a', '', 'A100', 'p4d.24xlarge'),
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      fc.string({ maxLength: 200 }),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 60 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 100 }), (texts, slots, maxBytes) => {
        const body = encoded(texts);
        expect(readAll(new TextIntern(slots, maxBytes), body, texts.length)).toEqual(readPlain(body, texts.length));
      }),
    );
  });

  it('decodes bytes that are not valid UTF-8 as pbf does (replacement characters), and the same bytes again the same way', () => {
    const pbf = new PbfWriter();
    for (let i = 0; i < 2; i++) pbf.writeBytesField(1, Uint8Array.of(0x61, 0xff, 0xc3, 0x28, 0xe2, 0x82));
    const body = Buffer.from(pbf.finish());
    const [first, second] = readAll(new TextIntern(), body, 2);
    expect(first).toBe(readPlain(body, 1)[0]);
    expect(second).toBe(first);
    expect(first).toContain('\ufffd');
  });

  it('hands back the string it decoded first for bytes met again, also across bodies', () => {
    const intern = new TextIntern();
    const [a] = readAll(intern, encoded(['topology.kubernetes.io/zone']), 1);
    const [b] = readAll(intern, encoded(['topology.kubernetes.io/zone']), 1);
    expect(b).toBe(a);
    expect(b).toBe('topology.kubernetes.io/zone');
  });

  it('keeps a copy of the bytes, not a view of the body: a body reused for other bytes is not mistaken for the old string', () => {
    // One slot, so every string meets the previous one's entry.
    const intern = new TextIntern(1);
    const body = encoded(['us-east-1a']);
    expect(readAll(intern, body, 1)).toEqual(['us-east-1a']);
    // The caller's buffer now holds another body, as a reused buffer would.
    body.set(encoded(['us-west-2b']));
    expect(readAll(intern, encoded(['us-west-2b']), 1)).toEqual(['us-west-2b']);
  });

  it('leaves a string that runs past the end of the body to the caller, with the position past its end', () => {
    const body = encoded(['nvidia.com/gpu']).subarray(0, 8);
    const pbf = new PbfReader(body);
    pbf.readVarint();
    new TextIntern().read(pbf);
    expect(pbf.pos).toBeGreaterThan(pbf.length);
  });
});
