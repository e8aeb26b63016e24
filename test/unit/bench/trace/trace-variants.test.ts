import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../bench/trace/seeded-rng';
import type { TracePod } from '../../../../bench/trace/trace-csv';
import { parsePodCsv } from '../../../../bench/trace/trace-csv';
import { generateVariant, parseVariantName, toPodCsv } from '../../../../bench/trace/trace-variants';

function pod(name: string, numGpu: number, gpuMilli: number, cpuMilli = 4000): TracePod {
  return { name, cpuMilli, memoryMiB: 1024, numGpu, gpuMilli: numGpu === 0 ? 0 : gpuMilli, gpuSpec: [] };
}

// 10 CPU-only, 20 shares, 60 whole single GPUs, 10 of 4 GPUs.
const SOURCE: TracePod[] = [
  ...Array.from({ length: 10 }, (_, i) => pod(`cpu-${i}`, 0, 0)),
  ...Array.from({ length: 20 }, (_, i) => pod(`share-${i}`, 1, 100 + i * 20)),
  ...Array.from({ length: 60 }, (_, i) => pod(`single-${i}`, 1, 1000)),
  ...Array.from({ length: 10 }, (_, i) => pod(`multi-${i}`, 4, 1000)),
];

const count = (pods: readonly TracePod[], test: (p: TracePod) => boolean) => pods.filter(test).length;
const isCpu = (p: TracePod) => p.numGpu === 0;
const isShare = (p: TracePod) => p.numGpu === 1 && p.gpuMilli < 1000;
const isMulti = (p: TracePod) => p.numGpu > 1;
const demand = (pods: readonly TracePod[], test: (p: TracePod) => boolean = () => true) =>
  pods.filter(test).reduce((sum, p) => sum + p.numGpu * p.gpuMilli, 0);

describe('parseVariantName', () => {
  it('reads the gen- names and leaves every other name alone', () => {
    expect(parseVariantName('gen-cpu250')).toEqual({ name: 'gen-cpu250', kind: 'cpu', percent: 250 });
    expect(parseVariantName('gen-share80')).toEqual({ name: 'gen-share80', kind: 'share', percent: 80 });
    expect(parseVariantName('gen-multigpu30')).toEqual({ name: 'gen-multigpu30', kind: 'multigpu', percent: 30 });
    expect(parseVariantName('default')).toBeUndefined();
    expect(parseVariantName('multigpu50')).toBeUndefined();
  });

  it('rejects a share above 100 %', () => {
    expect(() => parseVariantName('gen-share120')).toThrow(/0\.\.100/);
  });
});

describe('generateVariant', () => {
  it('gen-cpuNNN scales the CPU-only tasks and keeps every GPU task', () => {
    const variant = generateVariant(SOURCE, { name: 'gen-cpu250', kind: 'cpu', percent: 250 }, createRng(1));
    expect(count(variant, isCpu)).toBe(25);
    expect(demand(variant)).toBe(demand(SOURCE));
    expect(new Set(variant.map((p) => p.name)).size).toBe(variant.length);
  });

  it('gen-shareNN gives the fractional tasks that share of the GPU tasks, keeping their number and the whole-GPU mix', () => {
    const variant = generateVariant(SOURCE, { name: 'gen-share60', kind: 'share', percent: 60 }, createRng(1));
    const gpuTasks = count(variant, (p) => p.numGpu > 0);
    expect(gpuTasks).toBe(90);
    expect(count(variant, isShare)).toBe(54);
    // 36 whole-GPU tasks, single:multi = 60:10 as in the source.
    expect(count(variant, isMulti)).toBe(5);
    expect(count(variant, isCpu)).toBe(10);
  });

  it('gen-multigpuNN gives multi-GPU tasks about that share of the GPU demand, keeping the total', () => {
    const variant = generateVariant(SOURCE, { name: 'gen-multigpu50', kind: 'multigpu', percent: 50 }, createRng(1));
    const total = demand(variant);
    expect(Math.abs(total - demand(SOURCE)) / demand(SOURCE)).toBeLessThan(0.05);
    expect(demand(variant, isMulti) / total).toBeCloseTo(0.5, 1);
  });

  it('is the same list for the same seed, whatever order the source came in', () => {
    const spec = { name: 'gen-share80', kind: 'share', percent: 80 } as const;
    const a = generateVariant(SOURCE, spec, createRng(7));
    const b = generateVariant([...SOURCE].reverse(), spec, createRng(7));
    expect(b).toEqual(a);
  });

  it('says which kind of task is missing rather than inventing one', () => {
    const noMulti = SOURCE.filter((p) => !isMulti(p));
    expect(() => generateVariant(noMulti, { name: 'gen-multigpu30', kind: 'multigpu', percent: 30 }, createRng(1))).toThrow(/no multi task/);
  });
});

describe('toPodCsv', () => {
  it('writes what the trace reader reads back', () => {
    const pods = [pod('a', 2, 1000), { ...pod('b', 1, 500), gpuSpec: ['T4', 'P100'] }, pod('c', 0, 0)];
    expect(parsePodCsv(toPodCsv(pods))).toEqual(pods);
  });
});
