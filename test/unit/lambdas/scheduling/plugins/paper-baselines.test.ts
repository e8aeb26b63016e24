import { describe, expect, it } from 'vitest';
import { chooseDevices } from '../../../../../lambdas/scheduling/device-choice';
import { createBestFit } from '../../../../../lambdas/scheduling/plugins/best-fit';
import { gpuSharePacking } from '../../../../../lambdas/scheduling/plugins/gpu-share-packing';
import { leastAllocated } from '../../../../../lambdas/scheduling/plugins/least-allocated';
import { normalizeMinMax } from '../../../../../lambdas/scheduling/plugins/normalize-min-max';
import { createRandomPlacement } from '../../../../../lambdas/scheduling/plugins/random-device';
import { createRng } from '../../../../../bench/trace/seeded-rng';
import { cycle, nodeWithFree, pod, scoresOf } from './harness';

describe('BestFit (FGD paper baseline)', () => {
  it('prefers the node with the least CPU and GPU left after placement, rescaled 0..100', () => {
    const nodes = [nodeWithFree('empty', [1000, 1000, 1000, 1000]), nodeWithFree('half', [1000, 1000, 0, 0]), nodeWithFree('tight', [1000, 0, 0, 0])];
    const scores = scoresOf(createBestFit(), nodes, pod({ gpuCount: 1, gpuMilli: 1000 }));
    expect(scores.tight).toBe(100);
    expect(scores.empty).toBe(0);
    expect(scores.half).toBeGreaterThan(0);
    expect(scores.half).toBeLessThan(100);
  });

  it('counts CPU left over too', () => {
    const nodes = [nodeWithFree('idle-cpu', [1000]), nodeWithFree('busy-cpu', [1000], {}, 48_000)];
    const scores = scoresOf(createBestFit(), nodes, pod({ gpuCount: 1, gpuMilli: 1000 }));
    expect(scores['busy-cpu']).toBeGreaterThan(scores['idle-cpu'] ?? 0);
  });

  it('min-max normalisation is integer and all-equal scores become 0', () => {
    const a = Float64Array.from([50, 51, 52]);
    normalizeMinMax(a);
    expect(Array.from(a)).toEqual([0, 50, 100]);
    const b = Float64Array.from([7, 7]);
    normalizeMinMax(b);
    expect(Array.from(b)).toEqual([0, 0]);
  });
});

describe('GpuSharePacking (FGD paper baseline)', () => {
  const share = pod({ gpuCount: 1, gpuMilli: 300 });
  it('ranks shared devices over free devices of a used node over untouched nodes', () => {
    const nodes = [nodeWithFree('untouched', [1000, 1000]), nodeWithFree('used', [0, 1000]), nodeWithFree('shared', [400, 1000])];
    const s = scoresOf(gpuSharePacking, nodes, share);
    expect(s.shared).toBe(96); // 100 - 40 % free / 10
    expect(s.used).toBe(49); // 50 - one whole GPU opened
    expect(s.untouched).toBe(31); // 33 - 2 GPUs
  });

  it('scores pods without GPUs 0 everywhere', () => {
    expect(scoresOf(gpuSharePacking, [nodeWithFree('n', [1000])], pod({ gpuCount: 0 }))).toEqual({ n: 0 });
  });
});

describe('LeastAllocated (kube-scheduler default spread)', () => {
  it('prefers the node with the most CPU and memory left', () => {
    const s = scoresOf(leastAllocated, [nodeWithFree('idle', [1000]), nodeWithFree('busy', [1000], {}, 32_000)], pod({ gpuCount: 0, cpuMilli: 0 }));
    expect(s.idle).toBe(100);
    expect(s.busy).toBe(75); // CPU half free (50), memory all free (100)
  });
});

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
