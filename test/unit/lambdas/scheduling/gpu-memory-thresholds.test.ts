import { describe, expect, it } from 'vitest';
import { gpuFit } from '../../../../lambdas/scheduling';
import { canonicalModel, MARKETED_GPU_MEMORY_GIB, marketedSizesOf, usableGpuMemoryMiB } from '../../../../lambdas/scheduling/gpu-model';
import { ANY_MODEL, memoryBands, memoryBandsByModel, memoryThresholdMiB } from '../../../../lambdas/scheduling/gpu-memory-thresholds';
import { runPlugin } from './cycle';

// Each GPU's two reported figures: EC2's MiB (our labeler, Karpenter, Auto
// Mode) and the driver's NVML MiB (GPU Feature Discovery), as in
// plugins/gpu-fit.memory.test.ts.
const REPORTS: readonly { readonly model: string; readonly gib: number; readonly ec2: number; readonly nvml?: number }[] = [
  { model: 'A10G', gib: 24, ec2: 22888, nvml: 23028 },
  { model: 'A100', gib: 40, ec2: 40960, nvml: 40960 },
  { model: 'A100', gib: 80, ec2: 81920, nvml: 81920 },
  { model: 'B200', gib: 180, ec2: 183359 },
  { model: 'GB200', gib: 186, ec2: 186 * 1024 },
  { model: 'H100', gib: 80, ec2: 81920, nvml: 81559 },
  { model: 'H200', gib: 141, ec2: 144384, nvml: 143771 },
  { model: 'K80', gib: 12, ec2: 12288, nvml: 11441 },
  { model: 'L4', gib: 24, ec2: 22888, nvml: 23034 },
  { model: 'L40S', gib: 48, ec2: 45776, nvml: 46068 },
  { model: 'M60', gib: 8, ec2: 8192 },
  { model: 'T4', gib: 16, ec2: 16384, nvml: 15360 },
  { model: 'T4G', gib: 16, ec2: 16384 },
  { model: 'V100', gib: 16, ec2: 16384, nvml: 16160 },
  { model: 'V100', gib: 32, ec2: 32768, nvml: 32510 },
];

const ALL_SIZES = [...marketedSizesOf('')];
const REQUESTS_MIB = [...ALL_SIZES.flatMap((gib) => [gib * 1024 - 1, gib * 1024, gib * 1024 + 1]), 1, 20_000, 30_000, 50 * 1024, 200 * 1024];

describe('memory thresholds for node affinity', () => {
  it('a report is above the threshold exactly when usableGpuMemoryMiB reaches the request, for every model\'s sizes and for any model', () => {
    const sizeLists = [ALL_SIZES, ...Object.values(MARKETED_GPU_MEMORY_GIB)];
    for (const sizes of sizeLists) {
      const bands = memoryBands(sizes);
      for (const request of REQUESTS_MIB) {
        const threshold = memoryThresholdMiB(request, bands);
        // Every report up to past the largest size: the set of reports that fit is exactly (threshold, ∞).
        const wrong: number[] = [];
        for (let report = 0; report <= 200 * 1024; report += 1) {
          if (report > threshold !== usableGpuMemoryMiB(report, sizes) >= request) wrong.push(report);
          if (wrong.length > 3) break;
        }
        expect({ sizes, request, wrong }).toEqual({ sizes, request, wrong: [] });
      }
    }
  });

  it.each(REPORTS)('$model $gib GiB: asking $gib Gi passes both labels (EC2 $ec2, NVML $nvml), 1 GiB more passes neither', ({ model, gib, ec2, nvml }) => {
    const reports = nvml === undefined ? [ec2] : [ec2, nvml];
    for (const bands of [memoryBandsByModel()[model] ?? [], memoryBandsByModel()[ANY_MODEL] ?? []]) {
      const fits = memoryThresholdMiB(gib * 1024, bands);
      const more = memoryThresholdMiB((gib + 1) * 1024, bands);
      for (const report of reports) {
        expect(report).toBeGreaterThan(fits);
        expect(report).not.toBeGreaterThan(more);
      }
    }
  });

  it('the numbers the brief names: 80Gi fits an H100 at 81559 (GFD) and 81920 (Karpenter); 24Gi fits an A10G at 22888 and 23028', () => {
    const any = memoryBandsByModel()[ANY_MODEL] ?? [];
    expect(memoryThresholdMiB(80 * 1024, any)).toBeLessThan(81559);
    expect(memoryThresholdMiB(24 * 1024, any)).toBeLessThan(22888);
    expect(memoryThresholdMiB(24 * 1024, any)).toBeGreaterThanOrEqual(16 * 1024);
  });

  it('the affinity and the extender\'s gpuFit agree on every labeller\'s node, for every request, with and without the model named', () => {
    const node = (name: string, labels: Record<string, string>) => ({
      metadata: { name, labels },
      status: { allocatable: { cpu: '96', memory: '1152Gi', pods: '110', 'nvidia.com/gpu': '8' } },
    });
    for (const row of REPORTS) {
      const labelled = { ec2: { 'gpu.nvidia.com/model': row.model, 'gpu.nvidia.com/memory': String(row.ec2) } } as Record<string, Record<string, string>>;
      if (row.nvml !== undefined) labelled.nvml = { 'nvidia.com/gpu.product': `NVIDIA-${row.model}`, 'nvidia.com/gpu.memory': String(row.nvml) };
      for (const request of REQUESTS_MIB) {
        for (const named of [false, true]) {
          const pod = {
            metadata: { name: 'p', namespace: 'default', uid: 'p', annotations: { 'gpu.nvidia.com/memory': String(request), ...(named ? { 'gpu.nvidia.com/model': row.model } : {}) } },
            spec: { containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
          };
          const run = runPlugin(gpuFit, Object.entries(labelled).map(([name, labels]) => node(name, labels)), pod);
          const bands = memoryBandsByModel()[named ? canonicalModel(row.model) : ANY_MODEL] ?? [];
          for (const [name, labels] of Object.entries(labelled)) {
            const reported = Number(labels['gpu.nvidia.com/memory'] ?? labels['nvidia.com/gpu.memory']);
            const affinity = reported > memoryThresholdMiB(request, bands);
            expect({ row, name, request, named, fits: affinity }).toEqual({ row, name, request, named, fits: run.filter(name).ok });
          }
        }
      }
    }
  });

  it('has bands for every model of the marketed table and for any model', () => {
    expect(Object.keys(memoryBandsByModel()).sort()).toEqual([ANY_MODEL, ...Object.keys(MARKETED_GPU_MEMORY_GIB)].sort());
    expect(memoryBandsByModel()[ANY_MODEL]?.map(([size]) => size / 1024)).toEqual([...marketedSizesOf('')].sort((a, b) => a - b));
  });
});
