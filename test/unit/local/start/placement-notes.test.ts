import { describe, expect, it } from 'vitest';
import { placementWhy, utilizationNote } from '../../../../local/start/placement-notes';
import type { ExtenderView } from '../../../../local/start/extender-tap';

const ids: Record<string, string> = { 'ip-10-0-0-1.ec2.internal': 'a10g-a', 'ip-10-0-0-2.ec2.internal': 'a10g-b', 'ip-10-0-0-3.ec2.internal': 'a10g-x4-a', 'ip-10-0-0-4.ec2.internal': 'a10g-x4-b' };
const label = (node: string): string => ids[node] ?? node;

function view(scores: Record<string, number>, rejected = 8, tied: string[] = []): ExtenderView {
  return { kept: Object.keys(scores), rejected: Object.fromEntries(Array.from({ length: rejected }, (_, i) => [`other-${i}`, 'GPU model mismatch'])), scores, tied };
}

describe('placementWhy', () => {
  it('names the nodes that had equal scores (the extender\'s tie header) and says the extender decided', () => {
    const scores = { 'ip-10-0-0-2.ec2.internal': 10, 'ip-10-0-0-1.ec2.internal': 9, 'ip-10-0-0-3.ec2.internal': 1 };
    const tied = ['ip-10-0-0-2.ec2.internal', 'ip-10-0-0-1.ec2.internal'];
    expect(placementWhy(view(scores, 0, tied), 'ip-10-0-0-2.ec2.internal', label)).toBe(
      '3 of the 3 nodes kube-scheduler sent passed the extender; scores a10g-b 10, a10g-a 9, a10g-x4-a 1; tie with a10g-a (equal scores): the extender gives the top level to one of them by a stable node order, so every request and every extender instance agrees on it',
    );
  });

  it('calls equal top scores a tie: kube-scheduler picks at random among them', () => {
    const scores = { 'ip-10-0-0-2.ec2.internal': 10, 'ip-10-0-0-1.ec2.internal': 10, 'ip-10-0-0-3.ec2.internal': 1, 'ip-10-0-0-4.ec2.internal': 1 };
    expect(placementWhy(view(scores), 'ip-10-0-0-2.ec2.internal', label)).toBe(
      '4 of the 12 nodes kube-scheduler sent passed the extender; scores a10g-a 10, a10g-b 10, a10g-x4-a 1, a10g-x4-b 1; tie at 10 (a10g-a, a10g-b): kube-scheduler picks at random among equal totals, so a rerun may land on another',
    );
  });

  it('names tied nodes in the order of their labels, whatever their node names', () => {
    const byName = { 'ip-10-0-0-9.ec2.internal': 'a10g-a', 'ip-10-0-0-1.ec2.internal': 'a10g-b' };
    const why = placementWhy(view({ 'ip-10-0-0-1.ec2.internal': 7, 'ip-10-0-0-9.ec2.internal': 7 }, 0), 'ip-10-0-0-1.ec2.internal', (n) => byName[n as keyof typeof byName]);
    expect(why).toContain('scores a10g-a 7, a10g-b 7; tie at 7 (a10g-a, a10g-b)');
  });

  it('says nothing of ties when one node scores highest', () => {
    const scores = { 'ip-10-0-0-1.ec2.internal': 10, 'ip-10-0-0-2.ec2.internal': 8, 'ip-10-0-0-3.ec2.internal': 1 };
    const why = placementWhy(view(scores, 5), 'ip-10-0-0-1.ec2.internal', label);
    expect(why).toBe('3 of the 8 nodes kube-scheduler sent passed the extender; scores a10g-a 10, a10g-b 8, a10g-x4-a 1');
    expect(why).not.toContain('tie');
  });

  it('says when the pod did not land on our top score (kube-scheduler adds its own scores)', () => {
    const scores = { 'ip-10-0-0-1.ec2.internal': 10, 'ip-10-0-0-2.ec2.internal': 8 };
    expect(placementWhy(view(scores, 0), 'ip-10-0-0-2.ec2.internal', label)).toContain("not our top score: kube-scheduler adds its own plugins' scores to ours");
  });

  it('a single candidate, more scores than shown, and no extender call', () => {
    expect(placementWhy(view({ n: 3 }, 7), 'n', label)).toBe('1 of the 8 nodes kube-scheduler sent passed the extender; only candidate');
    const many = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`n${i}`, 9 - i]));
    expect(placementWhy(view(many, 0), 'n0', label)).toBe('6 of the 6 nodes kube-scheduler sent passed the extender; scores n0 9, n1 8, n2 7, n3 6, …');
    expect(placementWhy(undefined, 'n', label)).toBe('extender not consulted');
  });
});

describe('utilizationNote', () => {
  it('explains the rounding down to the reconciler\'s bucket', () => {
    expect(utilizationNote(85, '80', 10)).toBe('85 rounded down to a multiple of 10 (UTILIZATION_BUCKET_SIZE)');
    expect(utilizationNote(10, '10', 10)).toBe('');
    expect(utilizationNote(85, undefined, 10)).toBe('');
  });

  it('a value that is not the bucket of the metric was kept from an earlier run', () => {
    expect(utilizationNote(85, '70', 10)).toContain('kept from an earlier run');
  });
});
