import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../bench/trace/seeded-rng';
import type { TracePod } from '../../../../bench/trace/trace-csv';
import { parsePodCsv } from '../../../../bench/trace/trace-csv';
import { generateVariant, parseVariantName, toPodCsv, VARIANT_SEED, variantSource } from '../../../../bench/trace/trace-variants';

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

const isSpec = (p: TracePod) => p.gpuSpec.length > 0;

describe('parseVariantName', () => {
  it('reads the gen- names, with an optional generator seed, and leaves every other name alone', () => {
    expect(parseVariantName('gen-cpu250')).toEqual({ name: 'gen-cpu250', kind: 'cpu', share: 250, seed: VARIANT_SEED });
    expect(parseVariantName('gen-gpushare80')).toEqual({ name: 'gen-gpushare80', kind: 'gpushare', share: 80, seed: VARIANT_SEED });
    expect(parseVariantName('gen-multigpu30-s7')).toEqual({ name: 'gen-multigpu30-s7', kind: 'multigpu', share: 30, seed: 7 });
    expect(parseVariantName('gen-gpuspec10')).toEqual({ name: 'gen-gpuspec10', kind: 'gpuspec', share: 10, seed: VARIANT_SEED });
    expect(parseVariantName('default')).toBeUndefined();
    expect(parseVariantName('multigpu50')).toBeUndefined();
    expect(parseVariantName('gen-share80')).toBeUndefined();
  });

  it('rejects a share above the whole', () => {
    expect(() => parseVariantName('gen-gpushare120')).toThrow(/0\.\.100 % of the GPU requested/);
    expect(parseVariantName('gen-cpu999')?.share).toBe(999);
  });

  it('names the list each kind is generated from', () => {
    expect(variantSource('gpuspec')).toBe('gpuspec33');
    expect(variantSource('multigpu')).toBe('default');
  });
});

describe('generateVariant', () => {
  const spec = (name: string) => parseVariantName(name) as NonNullable<ReturnType<typeof parseVariantName>>;

  it('gen-cpuNNN appends CPU-only tasks until they are NNN per mille of the tasks, keeping every source task', () => {
    const variant = generateVariant(SOURCE, spec('gen-cpu250'), createRng(1));
    // 90 GPU tasks are 75 %: 30 CPU-only tasks.
    expect(count(variant, isCpu)).toBe(30);
    expect(count(variant, (p) => !isCpu(p))).toBe(90);
    expect(new Set(variant.map((p) => p.name)).size).toBe(variant.length);
    for (const p of SOURCE) expect(variant).toContainEqual(p);
  });

  it('gen-cpuNNN below the source appends GPU tasks in their own mix instead', () => {
    const variant = generateVariant(SOURCE, spec('gen-cpu050'), createRng(1));
    expect(count(variant, isCpu)).toBe(10);
    expect(count(variant, isCpu) / variant.length).toBeCloseTo(0.05, 2);
  });

  it('gen-gpushareNN trades whole-GPU tasks for sharing ones until they ask that share of the GPU requested, keeping the number of tasks', () => {
    const variant = generateVariant(SOURCE, spec('gen-gpushare60'), createRng(1));
    expect(demand(variant, isShare) / demand(variant)).toBeCloseTo(0.6, 1);
    expect(count(variant, (p) => p.numGpu > 0)).toBe(90);
    expect(count(variant, isCpu)).toBe(10);
    expect(new Set(variant.map((p) => p.name)).size).toBe(variant.length);
    const all = generateVariant(SOURCE, spec('gen-gpushare100'), createRng(1));
    expect(count(all, (p) => p.numGpu > 0 && !isShare(p))).toBe(0);
    expect(count(all, isShare)).toBe(90);
    const fewer = generateVariant(SOURCE, spec('gen-gpushare2'), createRng(1));
    expect(demand(fewer, isShare) / demand(fewer)).toBeCloseTo(0.02, 2);
    expect(count(fewer, (p) => p.numGpu > 0)).toBe(90);
  });

  it('gen-multigpuNN appends multi-GPU tasks until they ask that share of the GPU requested', () => {
    const variant = generateVariant(SOURCE, spec('gen-multigpu50'), createRng(1));
    expect(demand(variant, isMulti) / demand(variant)).toBeCloseTo(0.5, 1);
    expect(count(variant, (p) => !isMulti(p))).toBe(90);
  });

  it('gen-gpuspecNN keeps the models of just enough constrained tasks, and refuses more than the source has', () => {
    const constrained = SOURCE.map((p, i) => (p.numGpu > 0 && i % 2 === 0 ? { ...p, gpuSpec: ['T4'] } : p));
    const share = demand(constrained, isSpec) / demand(constrained);
    const variant = generateVariant(constrained, spec('gen-gpuspec20'), createRng(1));
    expect(variant.map((p) => p.name)).toEqual(constrained.map((p) => p.name).sort());
    expect(demand(variant, isSpec) / demand(variant)).toBeGreaterThanOrEqual(0.2);
    expect(demand(variant, isSpec) / demand(variant)).toBeLessThan(0.22);
    expect(() => generateVariant(constrained, spec('gen-gpuspec90'), createRng(1))).toThrow(`GPU models ask only ${(100 * share).toFixed(1)} %`);
  });

  it('is the same list for the same seed, whatever order the source came in, and another list for another seed', () => {
    const a = generateVariant(SOURCE, spec('gen-gpushare80'), createRng(7));
    const b = generateVariant([...SOURCE].reverse(), spec('gen-gpushare80'), createRng(7));
    expect(b).toEqual(a);
    expect(generateVariant(SOURCE, spec('gen-gpushare80'), createRng(8))).not.toEqual(a);
  });

  it('says which kind of task is missing rather than inventing one', () => {
    const noMulti = SOURCE.filter((p) => !isMulti(p));
    expect(() => generateVariant(noMulti, spec('gen-multigpu30'), createRng(1))).toThrow(/no multi task/);
  });
});

describe('toPodCsv', () => {
  it('writes what the trace reader reads back', () => {
    const pods = [pod('a', 2, 1000), { ...pod('b', 1, 500), gpuSpec: ['T4', 'P100'] }, pod('c', 0, 0)];
    expect(parsePodCsv(toPodCsv(pods))).toEqual(pods);
  });
});
