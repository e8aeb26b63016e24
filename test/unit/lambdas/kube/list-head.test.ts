import { describe, expect, it } from 'vitest';
import { listHeadOf } from '../../../../lambdas/kube/list-head';

const page = (metadata: unknown) => JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata, items: [{ metadata: { name: 'a' } }] });

describe('listHeadOf', () => {
  it('reads the continue token from the bytes before the items, as kube-apiserver orders them', () => {
    const body = page({ resourceVersion: '7', continue: 'eyJydiI6N30' });
    expect(listHeadOf(body.slice(0, body.indexOf('[') + 1))).toEqual({ state: 'known', continueToken: 'eyJydiI6N30' });
  });

  it('knows the last page, which has no token or an empty one', () => {
    expect(listHeadOf(page({ resourceVersion: '7' }))).toEqual({ state: 'known', continueToken: undefined });
    expect(listHeadOf(page({ resourceVersion: '7', continue: '' }))).toEqual({ state: 'known', continueToken: undefined });
  });

  it('asks for more bytes until the items begin', () => {
    const body = page({ resourceVersion: '7', continue: 'x' });
    expect(listHeadOf(body.slice(0, body.indexOf('"items"') + 3))).toEqual({ state: 'more' });
  });

  it('does not guess when the items come first, the metadata is not an object or the token not a string', () => {
    expect(listHeadOf(JSON.stringify({ items: [], metadata: { continue: 'x' } }))).toEqual({ state: 'unknown' });
    expect(listHeadOf(JSON.stringify({ metadata: 'x', items: [] }))).toEqual({ state: 'unknown' });
    expect(listHeadOf(JSON.stringify({ metadata: { continue: 5 }, items: [] }))).toEqual({ state: 'unknown' });
  });

  it('does not mistake "items": inside a string for the items', () => {
    expect(listHeadOf('{"metadata":{"continue":"a\\"items\\":b"},"items":[]}')).toEqual({ state: 'known', continueToken: 'a"items":b' });
    // A cut inside a string that looks like the key fails to parse: wait for the whole body.
    expect(listHeadOf('{"metadata":{"continue":"a\\","items":b"},"items":[]}')).toEqual({ state: 'unknown' });
  });
});
