import { describe, expect, it } from 'vitest';
import { chooseDevices } from '../../../../../lambdas/scheduling/device-choice';
import { createRandomPlacement } from '../../../../../lambdas/scheduling/plugins/random-device';
import { createRng } from '../../../../../bench/trace/seeded-rng';
import { cycle, nodeWithFree, pod } from './harness';

describe('RandomPlacement (FGD paper baseline)', () => {
  it('gives 100 to one feasible node drawn per cycle and picks a random device that fits', () => {
    const nodes = [nodeWithFree('a', [1000, 200, 700, 700]), nodeWithFree('b', [1000])];
    const plugin = createRandomPlacement(createRng(3).next);
    const seenNodes = new Set<string>();
    const seenDevices = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const { profile, state } = cycle(plugin, nodes, pod({ gpuCount: 1, gpuMilli: 500 }));
      const scores = profile.score(state, nodes);
      expect([...scores].sort()).toEqual([0, 100]);
      seenNodes.add(nodes[scores[0] === 100 ? 0 : 1]?.name ?? '');
      const node = nodes[0];
      if (node) for (const d of chooseDevices(profile, state, node) ?? []) seenDevices.add(d);
    }
    expect(seenNodes).toEqual(new Set(['a', 'b']));
    // Device 1 (200 free) never fits a 500 share; the others all get picked.
    expect(seenDevices).toEqual(new Set([0, 2, 3]));
  });
});
