import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordSystemFigures, systemFiguresOf } from '../../../../bench/perf/system-record';
import { parseSystemFigures } from '../../../../charts/system-figures';

const scale = { nodes: 1000, pods: 10_000, vcpu: 1, httpTimeoutSeconds: 5, cold: { initMs: 52.4, firstFilterMs: 560.3 } };
const e2e = {
  nodes: 100,
  pods: 400,
  comparisons: [
    { clientRateLimit: { qps: 50 }, without: { podsPerSecond: 67.2 }, with: { podsPerSecond: 66.6 } },
    { clientRateLimit: { qps: 100_000 }, without: { podsPerSecond: 494.4 }, with: { podsPerSecond: 216.1 } },
  ],
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench -- --record', () => {
  it("takes the cold first answer (INIT plus the first /filter) and each client limit's throughput, rounded", () => {
    const figures = systemFiguresOf({ scale, e2e }, '2026-12-04');
    expect(figures.coldFirstAnswer).toEqual([{ nodes: 1000, pods: 10_000, vcpu: 1, coldMs: 613, httpTimeoutMs: 5000, measured: '2026-12-04' }]);
    expect(figures.throughput?.map((t) => [t.clientLimit, t.qps, t.withoutPodsPerSecond, t.withPodsPerSecond])).toEqual([
      ['as deployed', 50, 67, 67],
      ['lifted', 100_000, 494, 216],
    ]);
    expect(systemFiguresOf({}, '2026-12-04')).toEqual({ coldFirstAnswer: [], throughput: [] });
  });

  it('creates the file, then merges a later run at another size beside the first', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'system-record-'));
    dirs.push(dir);
    const file = path.join(dir, 'data', 'system-bench.json');
    recordSystemFigures(file, systemFiguresOf({ scale: { ...scale, nodes: 5000, pods: 50_000 } }, '2026-12-03'));
    const merged = recordSystemFigures(file, systemFiguresOf({ scale, e2e }, '2026-12-04'));
    expect(merged.coldFirstAnswer.map((c) => c.nodes)).toEqual([1000, 5000]);
    expect(parseSystemFigures(readFileSync(file, 'utf8'), file)).toEqual(merged);
  });
});
