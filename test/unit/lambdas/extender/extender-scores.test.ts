import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { levelDrop, nodeTieKey, toExtenderScores } from '../../../../lambdas/extender/extender-scores';
import { MAX_EXTENDER_PRIORITY } from '../../../../lambdas/extender/wire-types';

const scoreArrays = fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 50 });

describe('levelDrop', () => {
  it('loses about one level per point near the best node, then logarithmically, down to the lowest feasible level', () => {
    // The level boundaries: 4·(e^((k − ½)/4) − 1) points behind the best.
    expect([0, 0.53, 0.54, 1.81, 1.83, 3.47, 3.48, 8.32, 8.33, 29.49, 29.5, 100].map(levelDrop)).toEqual([0, 0, 1, 1, 2, 2, 3, 4, 5, 8, 9, 9]);
  });

  it('treats a missing (NaN) score as the worst feasible node', () => {
    expect(levelDrop(Number.NaN)).toBe(MAX_EXTENDER_PRIORITY - 1);
  });
});

describe('toExtenderScores', () => {
  it('keeps utilization noise a tie instead of stretching it over 1..10', () => {
    // 40 % vs 41 % utilization: 0.04 points of the profile's mean (GpuScore weight 1 of 26).
    expect([...toExtenderScores([58.462, 58.423])]).toEqual([10, 10]);
  });

  it('keeps differences that matter, in proportion to their size', () => {
    // Utilization 10 % vs 60 %: 1.9 points, two levels.
    expect([...toExtenderScores([59.615, 57.692])]).toEqual([10, 8]);
    // An exact fit vs a node the pod would fragment (Fragmentation 73 vs 50): 14 points, six levels.
    expect([...toExtenderScores([56.538, 42.308])]).toEqual([10, 4]);
  });

  it('keeps the best node ahead where plain rounding to 0..10 would tie everything', () => {
    // Fragmentation-led scores that differ only by a small utilization term
    // (mean / 10, rounded, would give 8, 8, 8). Intentionally changed from
    // [1, 10, 4]: 81.2 and 82.0 are 0.8 apart and no longer stretched apart.
    expect([...toExtenderScores(Float64Array.from([81.2, 83.9, 82.0]))]).toEqual([8, 10, 8]);
  });

  it('ranks nodes far behind the best among themselves', () => {
    // A pod whose preferred nodes are all 10–25 points behind still gets the better of them.
    expect([...toExtenderScores([90, 80, 72, 65, 40])]).toEqual([10, 5, 3, 2, 1]);
  });

  it('gives one node, tied nodes and an empty list the obvious answer', () => {
    expect([...toExtenderScores([62.9])]).toEqual([10]);
    expect([...toExtenderScores([40, 40, 40.001])]).toEqual([10, 10, 10]);
    expect([...toExtenderScores([])]).toEqual([]);
  });

  it('gives every feasible node 1..10, the best 10, and preserves order', () => {
    fc.assert(
      fc.property(scoreArrays, (raw) => {
        const out = toExtenderScores(raw);
        expect(Math.max(...out)).toBe(MAX_EXTENDER_PRIORITY);
        for (let i = 0; i < raw.length; i++) {
          expect(out[i]).toBeGreaterThanOrEqual(1);
          expect(out[i]).toBeLessThanOrEqual(MAX_EXTENDER_PRIORITY);
          for (let j = 0; j < raw.length; j++) {
            if ((raw[i] as number) > (raw[j] as number)) expect(out[i]).toBeGreaterThanOrEqual(out[j] as number);
          }
        }
      }),
    );
  });

  it('never stretches a difference of d points to more than ⌊d⌋ + 1 levels, nor more than round(d) against the best node', () => {
    fc.assert(
      fc.property(scoreArrays, (raw) => {
        const out = toExtenderScores(raw);
        const best = Math.max(...raw);
        for (let i = 0; i < raw.length; i++) {
          const behindBest = best - (raw[i] as number);
          expect(MAX_EXTENDER_PRIORITY - (out[i] as number)).toBeLessThanOrEqual(Math.round(behindBest));
          for (let j = 0; j < raw.length; j++) {
            const d = Math.abs((raw[i] as number) - (raw[j] as number));
            expect(Math.abs((out[i] as number) - (out[j] as number))).toBeLessThanOrEqual(Math.floor(d) + 1);
          }
        }
      }),
    );
  });
});

/** Node i's name, for toExtenderScores; throws for an index it was not meant to ask. */
function nameIn(names: readonly string[]): (index: number) => string {
  return (index) => {
    const name = names[index];
    if (name === undefined) throw new RangeError(`no node ${index}`);
    return name;
  };
}

describe('toExtenderScores with node names: one node at the top', () => {
  it('leaves 10 to the best node alone; among equal best scores to the first in the stable name order', () => {
    const names = ['ip-10-0-0-1', 'ip-10-0-0-2', 'ip-10-0-0-3', 'ip-10-0-0-4'];
    // Three identical empty nodes and a worse one: kube-scheduler would pick among the three at random.
    const levels = toExtenderScores([50, 50, 50, 40], nameIn(names));
    const first = [0, 1, 2].reduce((a, b) => (nodeTieKey(names[b] ?? '') < nodeTieKey(names[a] ?? '') ? b : a));
    expect([...levels].filter((l) => l === 10)).toHaveLength(1);
    expect(levels[first]).toBe(10);
    expect([0, 1, 2].filter((i) => i !== first).map((i) => levels[i])).toEqual([9, 9]);
    expect(levels[3]).toBe([...toExtenderScores([50, 50, 50, 40])][3]);
    // The same preference in any order of the request: the winner is the node, not the position.
    const reversed = toExtenderScores([40, 50, 50, 50], nameIn([...names].reverse()));
    expect([...names].reverse()[[...reversed].indexOf(10)]).toBe(names[first]);
  });

  it('asks the names of the nodes at the top level only, not of every node', () => {
    const asked: number[] = [];
    toExtenderScores([50, 20, 50, 10], (index) => {
      asked.push(index);
      return `node-${index}`;
    });
    expect(asked).toEqual([0, 2]);
  });

  it('a near tie (within half a point) goes to the higher score, not to the name order', () => {
    const levels = toExtenderScores([50, 50.2], nameIn(['a', 'b']));
    expect([...levels]).toEqual([9, 10]);
  });

  it('exactly one node at 10, the best one; nobody else moves by more than one level', () => {
    fc.assert(
      fc.property(scoreArrays, (scores) => {
        const names = scores.map((_, i) => `node-${i}`);
        const plain = toExtenderScores(scores);
        const one = toExtenderScores(scores, nameIn(names));
        const top = [...one].flatMap((l, i) => (l === 10 ? [i] : []));
        expect(top).toHaveLength(1);
        expect(scores[top[0] ?? -1]).toBe(Math.max(...scores));
        one.forEach((l, i) => {
          expect(l).toBeLessThanOrEqual(plain[i] ?? 0);
          expect(l).toBeGreaterThanOrEqual((plain[i] ?? 0) - 1);
        });
      }),
    );
  });
});
