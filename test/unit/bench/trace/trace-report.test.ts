import { describe, expect, it } from 'vitest';
import { parsePublishedCsv, workloadKey } from '../../../../bench/trace/published-results';
import type { PolicyResult } from '../../../../bench/trace/trace-report';
import { formatAblationTable, formatTable, pairedDifference, sampleSd, toJson, toTraceResults } from '../../../../bench/trace/trace-report';
import { TRACE_RESULTS_SCHEMA } from '../../../../charts/trace-results';

const curve = (at100: number, at130: number) => Array.from({ length: 131 }, (_, p) => (p === 100 ? at100 : p === 130 ? at130 : p < 100 ? p * 0.9 : Number.NaN));
const results: PolicyResult[] = [
  { policy: 'bestfit', seeds: 10, curve: curve(92.861, 93.077), secondsPerSeed: 1.5, sd130: 0.123 },
  { policy: 'default', seeds: 10, curve: curve(94.5, 94.7), secondsPerSeed: 12 },
];
const published = parsePublishedCsv(
  'workload,policy,seeds,alloc_pct_at_arrived_100,alloc_pct_at_arrived_130\nopenb_pod_list_default,BestFit,10,92.86,93.08\nopenb_pod_list_default,FGD,10,95.23,95.39\n',
);

describe('trace report', () => {
  it('JSON is {policy: {alloc100, alloc130}} in percent with two decimals', () => {
    expect(toJson(results)).toEqual({ bestfit: { alloc100: 92.86, alloc130: 93.08 }, default: { alloc100: 94.5, alloc130: 94.7 } });
  });

  it('the table puts the paper value and the difference beside each reproduced policy', () => {
    const table = formatTable(results, published, workloadKey('/data/openb_pod_list_default.csv'));
    expect(table).toMatch(/bestfit\s+10\s+92\.86\s+93\.08\s+0\.12\s+BestFit\s+92\.86\s+93\.08\s+[+-]0\.00\s+1\.5/);
    // No spread known: a dash.
    expect(table).toMatch(/default\s+10\s+94\.50\s+94\.70\s+-\s+-\s+-\s+12\.0/);
    expect(sampleSd([1, 2, 3])).toBeCloseTo(1, 12);
    expect(sampleSd([5])).toBeNaN();
    expect(table).toMatch(/\(paper FGD\)\s+10\s+FGD\s+95\.23\s+95\.39/);
  });

  it('the ablation table gives each ablation its paired difference against extender, with the change it makes', () => {
    const ablated: PolicyResult[] = [
      { policy: 'extender', seeds: 3, curve: curve(90, 95.5), secondsPerSeed: 5, at130BySeed: [95.4, 95.5, 95.6] },
      { policy: 'extender-packing', seeds: 3, curve: curve(90, 94.4), secondsPerSeed: 5, at130BySeed: [94.2, 94.5, 94.5] },
      { policy: 'bestfit', seeds: 3, curve: curve(90, 93), secondsPerSeed: 1 },
    ];
    const table = formatAblationTable(ablated, { 'extender-packing': 'GpuPacking weight 1' });
    // Differences −1.2, −1.0, −1.1: mean −1.10, sd 0.1, se 0.1/√3.
    expect(table).toMatch(/extender-packing\s+GpuPacking weight 1\s+94\.40\s+-1\.10 ± 0\.06/);
    expect(table).toMatch(/^extender\s+nothing/m);
    expect(table).not.toMatch(/bestfit/);
    expect(pairedDifference([1, 2], [1])).toBe('-');
    expect(pairedDifference([2], [1])).toBe('+1.00');
  });

  it("records each policy's curve, its figures and the workload's published values as the trace chart reads them", () => {
    const recorded = toTraceResults(results, [...published, { workload: 'openb_pod_list_gpuspec33', policy: 'FGD', alloc100: 1, alloc130: 2 }], {
      workload: 'openb_pod_list_default',
      seeds: 10,
      tieBreak: 'order',
      command: 'npm run bench:trace --',
      measured: '2026-12-05',
    });
    expect(TRACE_RESULTS_SCHEMA.parse(JSON.parse(JSON.stringify(recorded)))).toEqual(recorded);
    expect(recorded.policies[0]).toMatchObject({ policy: 'bestfit', alloc100: 92.86, alloc130: 93.08, sd130: 0.12 });
    expect(recorded.policies[0]?.curve[50]).toBe(45);
    // No seed reached 101..129 %: null, not NaN (which JSON cannot hold).
    expect(recorded.policies[0]?.curve[110]).toBeNull();
    expect(recorded.policies[1]?.sd130).toBeNull();
    expect(recorded.published).toEqual([
      { policy: 'BestFit', alloc100: 92.86, alloc130: 93.08 },
      { policy: 'FGD', alloc100: 95.23, alloc130: 95.39 },
    ]);
  });

  it('rejects a published file without the expected columns', () => {
    expect(() => parsePublishedCsv('workload,policy\nx,y\n')).toThrow(/missing column "alloc_pct_at_arrived_100"/);
  });
});
