import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateDump } from '../../../../bench/simulate/generated-dump';
import { parseKubeList } from '../../../../simulator/kube-list-file';
import { countSlots } from '../../../../simulator/report/gpu-slots';
import { buildWhatIfReport } from '../../../../simulator/report/report-model';
import { simulate } from '../../../../simulator/simulate';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const read = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

describe('buildWhatIfReport', () => {
  const nodes = parseKubeList(read('nodes.json'), 'nodes.json', 'Node');
  const pods = parseKubeList(read('pods.yaml'), 'pods.yaml', 'Pod');
  const result = simulate(nodes, pods);
  const report = buildWhatIfReport(nodes, pods, result);

  it('groups nodes by GPU model, zone and pool', () => {
    expect(report.groups.map((g) => [g.model, g.zone, g.pool, g.nodes.map((n) => n.name)])).toEqual([
      ['A100', 'us-east-1a', 'no pool label', ['a100-a']],
      ['A100', 'us-east-1b', 'no pool label', ['a100-b']],
      ['T4', 'no zone label', 'no pool label', ['t4']],
    ]);
  });

  it("shows each node's slots before and after: the pods placed now on top of the bound ones", () => {
    const b = report.groups[1]?.nodes[0];
    expect(countSlots(b?.before.slots ?? [])).toMatchObject({ bound: 5, placed: 0 });
    expect(countSlots(b?.after.slots ?? [])).toMatchObject({ bound: 5, placed: 2 });
    expect(b?.placedHere).toEqual(['ml/train']);
  });

  it('measures the outcome after as the simulator does, and before on the input alone', () => {
    expect(report.after).toEqual(result.gpus);
    expect(report.before.allocated).toBe(5);
    expect(report.after.allocated).toBe(5 + 2 + 1);
  });

  it('lists every pending pod of the input with its state: placed, unschedulable with why, or skipped', () => {
    expect(report.pending.map((p) => [p.pod, p.state])).toEqual([
      ['ml/train', 'placed'],
      ['ml/infer', 'placed'],
      ['ml/huge', 'unschedulable'],
      ['default/web', 'placed'],
      ['default/api', 'other-scheduler'],
    ]);
    expect(report.pending[0]).toMatchObject({ gpus: 2, asks: 'model A100, memory 40960' });
    expect(report.pending[2]?.unschedulable?.filteredByScheduler[0]).toMatchObject({ plugin: 'NodeResourcesFit', reason: 'Insufficient nvidia.com/gpu' });
  });

  it("adds up, node by node, to the outcome's GPUs (placed and bound = allocated, stranded within a GPU per node)", () => {
    const dump = generateDump({ nodes: 40, pods: 300, pendingShare: 0.05, seed: 7 });
    const big = buildWhatIfReport(dump.nodes, dump.pods, simulate(dump.nodes, dump.pods));
    const slots = big.groups.flatMap((g) => g.nodes.flatMap((n) => n.after.slots));
    const counts = countSlots(slots);
    expect(counts.placed).toBeGreaterThan(0);
    expect(counts.bound + counts.placed).toBe(Math.ceil(big.after.allocated));
    const perNode = big.groups.flatMap((g) => g.nodes.map((n) => n.after.stranded)).reduce((a, b) => a + b, 0);
    expect(perNode).toBeCloseTo(big.after.stranded, 1);
    expect(big.groups.reduce((sum, g) => sum + g.nodes.length, 0)).toBe(40);
  });
});
