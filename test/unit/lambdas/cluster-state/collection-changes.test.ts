import { describe, expect, it } from 'vitest';
import type { CollectionKind } from '../../../../lambdas/cluster-state/collection-changes';
import { CollectionChanges } from '../../../../lambdas/cluster-state/collection-changes';

interface Item {
  readonly name: string;
  readonly size: number;
}

/** Objects `{metadata: {name, resourceVersion}, size}`; size 0 holds nothing (like a finished pod). */
const kind: CollectionKind<Item> = {
  key: (o) => (o as { metadata?: { name?: string } }).metadata?.name,
  reduce: (o) => {
    const { metadata, size } = o as { metadata: { name: string }; size: number };
    return size > 0 ? { name: metadata.name, size } : undefined;
  },
};

const event = (type: string, name: string | undefined, rv: string | undefined, size = 1) => ({
  type,
  object: { metadata: { ...(name === undefined ? {} : { name }), ...(rv === undefined ? {} : { resourceVersion: rv }) }, size },
});

const items = (...entries: Item[]) => new Map(entries.map((i) => [i.name, i]));

describe('CollectionChanges', () => {
  it('applies ADDED, MODIFIED and DELETED by key, the last event per key winning, and moves to the last version', () => {
    const changes = new CollectionChanges(kind, '10');
    expect(changes.record(event('ADDED', 'c', '11', 3))).toBe(true);
    expect(changes.record(event('MODIFIED', 'a', '12', 5))).toBe(true);
    expect(changes.record(event('DELETED', 'b', '13'))).toBe(true);
    expect(changes.record(event('MODIFIED', 'c', '14', 4))).toBe(true);
    expect(changes.resourceVersion).toBe('14');
    const held = items({ name: 'a', size: 1 }, { name: 'b', size: 2 });
    expect(changes.applyTo(held)).toBe(3);
    expect([...held.values()]).toEqual([
      { name: 'a', size: 5 },
      { name: 'c', size: 4 },
    ]);
  });

  it('changes nothing before applyTo', () => {
    const held = items({ name: 'a', size: 1 });
    const changes = new CollectionChanges(kind, '1');
    changes.record(event('DELETED', 'a', '2'));
    expect(held.get('a')).toEqual({ name: 'a', size: 1 });
    expect(changes.resourceVersion).toBe('2');
  });

  it('removes an object that no longer reduces to anything (a pod that finished), and counts deleting an unknown key as no change', () => {
    const changes = new CollectionChanges(kind, '1');
    changes.record(event('MODIFIED', 'a', '2', 0));
    changes.record(event('DELETED', 'ghost', '3'));
    const held = items({ name: 'a', size: 1 });
    expect(changes.applyTo(held)).toBe(1);
    expect(held.size).toBe(0);
  });

  it('keeps the held entry, and reports no change, when a modification leaves it equal (a status update)', () => {
    const original = { name: 'a', size: 1 };
    const held = items(original);
    const changes = new CollectionChanges(kind, '1');
    changes.record(event('MODIFIED', 'a', '2', 1));
    expect(changes.applyTo(held)).toBe(0);
    expect(held.get('a')).toBe(original);
    expect(changes.resourceVersion).toBe('2');
  });

  it('a BOOKMARK only advances the version', () => {
    const changes = new CollectionChanges(kind, '5');
    expect(changes.record({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '90' } } })).toBe(true);
    expect(changes.resourceVersion).toBe('90');
    expect(changes.applyTo(items())).toBe(0);
    expect(changes.events).toBe(1);
  });

  it('skips an object without a key but still moves past it', () => {
    const changes = new CollectionChanges(kind, '1');
    expect(changes.record(event('ADDED', undefined, '2'))).toBe(true);
    expect(changes.resourceVersion).toBe('2');
    expect(changes.applyTo(items())).toBe(0);
  });

  it.each([
    ['an ERROR event (410 Gone)', { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (200)' } }, /ERROR event: 410 Expired too old resource version/],
    ['an event without a resourceVersion', event('MODIFIED', 'a', undefined), /without a resourceVersion/],
    ['an unknown event type', event('RENAMED', 'a', '3'), /unknown watch event type RENAMED/],
    ['something that is not an event', 'hello', /without a resourceVersion/],
  ])('asks for a full list after %s, and takes nothing after it', (_, bad, reason) => {
    const changes = new CollectionChanges(kind, '1');
    changes.record(event('ADDED', 'a', '2'));
    expect(changes.record(bad)).toBe(false);
    expect(changes.relistReason).toMatch(reason);
    expect(changes.record(event('ADDED', 'b', '9'))).toBe(false);
    expect(changes.resourceVersion).toBe('2');
  });
});
