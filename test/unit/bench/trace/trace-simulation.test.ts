import { describe, expect, it } from 'vitest';
import { createSimulatorProfile } from '../../../../lambdas/scheduling/profiles';
import { createRng } from '../../../../bench/trace/seeded-rng';
import type { TraceNode, TracePod } from '../../../../bench/trace/trace-csv';
import { parseNodeCsv, parsePodCsv } from '../../../../bench/trace/trace-csv';
import { loadTraceInput, runSeed } from '../../../../bench/trace/trace-job';
import { createPolicyProfile, POLICIES } from '../../../../bench/trace/trace-policies';
import { nodeFromTrace, numFeasibleNodesToFind, podFromTrace, runTrace } from '../../../../bench/trace/trace-simulation';
import { Snapshot } from '../../../../lambdas/scheduling/snapshot';
import { Profile } from '../../../../lambdas/scheduling/profile';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

function node(name: string, gpuCount: number, model = 'T4', cpuMilli = 64_000): TraceNode {
  return { name, cpuMilli, memoryMiB: 262_144, gpuCount, model };
}

function pod(name: string, numGpu: number, gpuMilli: number, gpuSpec: string[] = [], cpuMilli = 1000): TracePod {
  return { name, cpuMilli, memoryMiB: 1024, numGpu, gpuMilli, gpuSpec };
}

/** Places the pods in order with the library's default simulator profile; returns where each went. */
function place(nodes: TraceNode[], pods: TracePod[]): (string | undefined)[] {
  const profile = createSimulatorProfile();
  const infos = nodes.map(nodeFromTrace);
  const snapshot = new Snapshot(infos);
  return pods.map((trace) => {
    const p = podFromTrace(trace);
    const state = profile.startCycle(snapshot, p);
    const { feasible } = profile.filter(state, infos);
    const target = feasible[0];
    if (target === undefined) return undefined;
    snapshot.bind({ uid: p.uid, namespace: p.namespace, name: p.name, labels: p.labels, nodeName: target.name, demand: p.demand });
    return target.name;
  });
}

describe('device-level fit of trace pods (library filters)', () => {
  it('a fractional pod needs ONE device with that much free, not the node total', () => {
    // 2 GPUs, 600 used on each: 800 free on the node, but no device has 500.
    const where = place([node('n', 2)], [pod('a', 1, 600), pod('b', 1, 600), pod('c', 1, 500), pod('d', 1, 400)]);
    expect(where).toEqual(['n', 'n', undefined, 'n']);
  });

  it('a multi-GPU pod needs that many WHOLE free devices', () => {
    const where = place([node('n', 4)], [pod('share', 1, 100), pod('three', 3, 1000), pod('two', 2, 1000), pod('one', 1, 1000)]);
    // After a 0.1 share and three whole GPUs, no device is whole: even one full GPU does not fit.
    expect(where).toEqual(['n', 'n', undefined, undefined]);
  });

  it('gpu_spec lists the allowed models; an empty spec allows any', () => {
    const nodes = [node('t4', 1, 'T4'), node('v100', 1, 'V100M32')];
    expect(place(nodes, [pod('v', 1, 1000, ['V100M16', 'V100M32'])])).toEqual(['v100']);
    expect(place(nodes, [pod('a', 1, 1000, ['A10'])])).toEqual([undefined]);
    expect(place([node('v100', 1, 'V100M32')], [pod('any', 1, 1000)])).toEqual(['v100']);
  });

  it('CPU and memory must fit as well', () => {
    expect(place([node('small', 8, 'T4', 4000)], [pod('cpu-heavy', 1, 1000, [], 8000)])).toEqual([undefined]);
  });

  it('a similar model name is not a match (V100M16 is not V100M32)', () => {
    expect(place([node('v16', 1, 'V100M16')], [pod('p', 1, 1000, ['V100M32'])])).toEqual([undefined]);
  });
});

describe('trace replay', () => {
  const nodes = [node('a', 2), node('b', 4), node('c', 8, 'V100M32')];
  const pods = [pod('x-0', 1, 500), pod('x-1', 1, 1000), pod('x-2', 2, 1000), pod('x-3', 1, 250, ['V100M32']), pod('x-4', 0, 0)];

  it('every policy replays the same arrivals and reports allocation up to 130 %', () => {
    for (const policy of POLICIES) {
      const rng = createRng(42);
      const arrivals = [...pods, ...pods.map((p) => ({ ...p, name: `${p.name}-again` })), ...pods.map((p) => ({ ...p, name: `${p.name}-more` }))];
      const profile = createPolicyProfile(policy, { random: rng.next, shapes: [] });
      const result = runTrace(nodes, arrivals, profile, rng, 130);
      expect(result.placed + result.unschedulable).toBe(arrivals.length);
      const last = result.checkpoints.get(Math.max(...result.checkpoints.keys())) ?? Number.NaN;
      expect(last).toBeGreaterThan(0);
      expect(last).toBeLessThanOrEqual(100);
    }
  });

  it('with --tie-break random a seed is still reproducible', () => {
    const run = () => {
      const rng = createRng(9);
      return [...runTrace(nodes, pods, createPolicyProfile('bestfit', { random: rng.next, shapes: [] }), rng, 130, 'random').checkpoints];
    };
    expect(run()).toEqual(run());
  });

  it('a seed is reproducible and different seeds differ', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'trace-'));
    const nodesCsv = path.join(dir, 'nodes.csv');
    const podsCsv = path.join(dir, 'pods.csv');
    writeFileSync(nodesCsv, 'sn,cpu_milli,memory_mib,gpu,model\n' + Array.from({ length: 12 }, (_, i) => `n${i},32000,131072,${[1, 2, 4, 8][i % 4]},T4`).join('\n'));
    writeFileSync(
      podsCsv,
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n' +
        Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')},${2000 + (i % 5) * 1000},4096,${i % 9 === 0 ? 2 : 1},${i % 9 === 0 ? 1000 : [1000, 500, 250, 750][i % 4]},`).join('\n'),
    );
    const input = loadTraceInput(nodesCsv, podsCsv);
    expect(parseNodeCsv('sn,cpu_milli,memory_mib,gpu,model\n')).toEqual([]);
    expect(parsePodCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n')).toEqual([]);
    const one = runSeed(input, 'random', 42);
    const again = runSeed(input, 'random', 42);
    const other = runSeed(input, 'random', 43);
    expect(again.checkpoints).toEqual(one.checkpoints);
    expect(other.checkpoints).not.toEqual(one.checkpoints);
    // The inflated workload reaches the 130 % checkpoint.
    expect(one.checkpoints.some(([p]) => p === 130)).toBe(true);
  });

  it('the kube-scheduler path samples nodes as kube-scheduler does and chooses by integer extender levels', () => {
    // pkg/scheduler/schedule_one.go numFeasibleNodesToFind, percentageOfNodesToScore unset.
    expect(numFeasibleNodesToFind(50)).toBe(50);
    expect(numFeasibleNodesToFind(150)).toBe(100); // 49 % of 150 = 73, raised to the minimum of 100
    expect(numFeasibleNodesToFind(1213)).toBe(497); // 50 − 9 = 41 %
    expect(numFeasibleNodesToFind(5000)).toBe(500); // 10 %
    expect(numFeasibleNodesToFind(10_000)).toBe(500); // floor at 5 %
    expect(numFeasibleNodesToFind(1213, 100)).toBe(1213);

    const many = Array.from({ length: 300 }, (_, i) => node(`n${String(i).padStart(3, '0')}`, [1, 2, 4, 8][i % 4] ?? 1));
    const arrivals = Array.from({ length: 400 }, (_, i) => pod(`p${i}`, i % 7 === 0 ? 2 : 1, i % 3 === 0 ? 500 : 1000));
    const run = (path: 'continuous' | 'kube-scheduler', seed: number) => {
      const rng = createRng(seed);
      const profile = createSimulatorProfile();
      return runTrace(many, arrivals, profile, rng, 130, 'order', path === 'kube-scheduler' ? { extenderWeight: 2 } : undefined);
    };
    const faithful = run('kube-scheduler', 42);
    expect(faithful.placed + faithful.unschedulable).toBe(arrivals.length);
    // kube-scheduler scores only the nodes it found: 48 % of 300 = 144, from a start that rotates past them.
    const scored: string[][] = [];
    const counting = new Profile({
      name: 'counting',
      filters: [],
      scorers: [{ plugin: { name: 'Count', score: (_state: unknown, _pod: unknown, n: { name: string }) => (scored.at(-1)?.push(n.name), 50) }, weight: 1 }],
    });
    const original = counting.startCycle.bind(counting);
    counting.startCycle = (snap, p) => (scored.push([]), original(snap, p));
    const countingRun = (kube: boolean) => {
      scored.length = 0;
      const rng = createRng(1);
      const twoPods = arrivals.slice(1, 3); // 1-GPU pods: every node fits
      runTrace(many, twoPods, counting, rng, 130, 'order', kube ? { extenderWeight: 2 } : undefined);
      return scored.map((names) => names.length);
    };
    expect(countingRun(false)).toEqual([300, 300]);
    expect(countingRun(true)).toEqual([144, 144]);
    // Reproducible per seed (its random tie-breaks come from the seeded rng).
    expect([...run('kube-scheduler', 42).checkpoints]).toEqual([...faithful.checkpoints]);
    expect(run('continuous', 42).placed).toBe(faithful.placed);
  });
});
