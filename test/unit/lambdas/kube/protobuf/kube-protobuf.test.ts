import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPod } from '../../../../../lambdas/kube/protobuf/core-v1-readers';
import { decodeKubeList, decodeKubeStatus, isKubeProtobuf, ProtobufDecodeError, protobufListHeadOf } from '../../../../../lambdas/kube/protobuf/kube-protobuf';
import { encodeList, encodeStatus, envelope, writePod } from './kube-protobuf-encoder';

const pods = Array.from({ length: 3 }, (_, i) => ({
  metadata: { name: `p${i}`, namespace: 'ml', uid: `u${i}` },
  spec: { nodeName: 'n1', containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
  status: { phase: 'Running' },
}));
const TOKEN = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjQyNzd9';

describe('decodeKubeList', () => {
  it("gives the items, the continue token and the list's resourceVersion; an empty token is the last page", () => {
    const page = decodeKubeList(encodeList(pods, writePod, { continueToken: TOKEN, resourceVersion: '24277' }), readPod);
    expect(page.items.map((p) => (p as { metadata: { name: string } }).metadata.name)).toEqual(['p0', 'p1', 'p2']);
    expect(page).toMatchObject({ continueToken: TOKEN, resourceVersion: '24277' });
    expect(decodeKubeList(encodeList([], writePod), readPod)).toEqual({ items: [], continueToken: undefined, resourceVersion: undefined });
  });

  it('refuses a body without the "k8s\\0" magic, e.g. JSON', () => {
    expect(() => decodeKubeList(new TextEncoder().encode('{"items":[]}'), readPod, 'GET /api/v1/pods')).toThrow('GET /api/v1/pods does not start with kube-apiserver\'s protobuf magic "k8s\\0"');
  });

  it('refuses every truncation that cuts into the list with a ProtobufDecodeError, never a shorter list', () => {
    const body = encodeList(pods, writePod, { continueToken: TOKEN });
    const whole = decodeKubeList(body, readPod);
    let refused = 0;
    for (let cut = 0; cut < body.length; cut++) {
      let page;
      try {
        page = decodeKubeList(body.subarray(0, cut), readPod);
      } catch (error) {
        expect(error, `cut at ${cut}`).toBeInstanceOf(ProtobufDecodeError);
        refused++;
        continue;
      }
      // Only the envelope's trailing contentEncoding and contentType (empty) were cut: the list is whole.
      expect(page, `cut at ${cut}`).toEqual(whole);
      expect(cut).toBeGreaterThan(body.length - 5);
    }
    expect(refused).toBeGreaterThan(body.length - 5);
  });

  it('answers arbitrary bytes after the magic with a list or a ProtobufDecodeError, never another error (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeKubeList(envelope(bytes), readPod);
        } catch (error) {
          expect(error).toBeInstanceOf(ProtobufDecodeError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('protobufListHeadOf', () => {
  it('says "more" until the ListMeta has arrived, then the same token as the whole body, for every prefix', () => {
    for (const token of [TOKEN, undefined]) {
      const body = encodeList(pods, writePod, token === undefined ? {} : { continueToken: token });
      let firstKnown = -1;
      for (let cut = 0; cut <= body.length; cut++) {
        const head = protobufListHeadOf(body.subarray(0, cut));
        if (head.state === 'known') {
          if (firstKnown < 0) firstKnown = cut;
          expect(head.continueToken).toBe(token);
        } else {
          expect(head.state, `cut at ${cut}`).toBe('more');
          expect(firstKnown).toBe(-1);
        }
      }
      // Known well before the items: the head is the envelope's TypeMeta plus the ListMeta.
      expect(firstKnown).toBeGreaterThan(0);
      expect(firstKnown).toBeLessThan(40 + (token?.length ?? 0));
    }
  });

  it('is "unknown" for JSON and for a list whose first field is not its metadata', () => {
    expect(protobufListHeadOf(new TextEncoder().encode('{"kind":"PodList","metadata":{}}'))).toEqual({ state: 'unknown' });
    expect(protobufListHeadOf(envelope(Uint8Array.of(0x12, 0x00)))).toEqual({ state: 'unknown' });
  });
});

describe('decodeKubeStatus', () => {
  it("reads an error answer's message and reason; undefined for what is not protobuf", () => {
    expect(decodeKubeStatus(encodeStatus(410, 'Expired', 'too old resource version: 1 (2)'))).toEqual({ message: 'too old resource version: 1 (2)', reason: 'Expired' });
    expect(decodeKubeStatus(new TextEncoder().encode('<html>bad gateway</html>'))).toBeUndefined();
  });
});

describe('isKubeProtobuf', () => {
  it('matches the media type whatever its parameters and case', () => {
    expect(isKubeProtobuf('application/vnd.kubernetes.protobuf')).toBe(true);
    expect(isKubeProtobuf('Application/Vnd.Kubernetes.Protobuf; charset=binary')).toBe(true);
    expect(isKubeProtobuf('application/json')).toBe(false);
    expect(isKubeProtobuf(undefined)).toBe(false);
  });
});
