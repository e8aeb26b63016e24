import { describe, expect, it } from 'vitest';
import { gpuFit } from '../../../../../lambdas/scheduling';
import { MARKETED_GPU_MEMORY_GIB } from '../../../../../lambdas/scheduling/gpu-model';
import { GPU_MODELS } from '../../../../../lambdas/observability/metric-catalog';
import { runPlugin } from '../cycle';

// Every NVIDIA GPU EC2 offers, with the two numbers nodes report for it:
// EC2's DescribeInstanceTypes MiB (what our labeler, Karpenter and Auto Mode
// write) and the driver's NVML total (GPU Feature Discovery's
// nvidia.com/gpu.memory). NVML figures seen in GFD output: H100 81559,
// L4 23034, T4 15360 (g4dn), K80 11441 (p2); V100 16160 / 32510 from
// NVML-derived device tables; A100, A10G, L40S and H200 from DESIGN.md.
// Where no NVML figure was found (M60, T4G, B200, GB200) the row has none,
// and GB200's EC2 figure was not found either: its row labels the marketed
// size as such.
interface Row {
  readonly gpu: string;
  /** EC2's spelling, as our labeler writes it; Karpenter and Auto Mode write it in lower case. */
  readonly ec2Name: string;
  readonly ec2MiB: number;
  readonly gfdProduct: string;
  readonly nvmlMiB: number | undefined;
  /** What a user writes, in GiB. */
  readonly marketedGiB: number;
}

const ROWS: readonly Row[] = [
  { gpu: 'A10G (g5)', ec2Name: 'A10G', ec2MiB: 22888, gfdProduct: 'NVIDIA-A10G', nvmlMiB: 23028, marketedGiB: 24 },
  { gpu: 'A100 40GB (p4d)', ec2Name: 'A100', ec2MiB: 40960, gfdProduct: 'NVIDIA-A100-SXM4-40GB', nvmlMiB: 40960, marketedGiB: 40 },
  { gpu: 'A100 80GB (p4de)', ec2Name: 'A100', ec2MiB: 81920, gfdProduct: 'NVIDIA-A100-SXM4-80GB', nvmlMiB: 81920, marketedGiB: 80 },
  { gpu: 'B200 (p6-b200)', ec2Name: 'B200', ec2MiB: 183359, gfdProduct: 'NVIDIA-B200', nvmlMiB: undefined, marketedGiB: 180 },
  { gpu: 'GB200 (p6e-gb200)', ec2Name: 'GB200', ec2MiB: 186 * 1024, gfdProduct: 'NVIDIA-GB200', nvmlMiB: undefined, marketedGiB: 186 },
  { gpu: 'H100 (p5)', ec2Name: 'H100', ec2MiB: 81920, gfdProduct: 'NVIDIA-H100-80GB-HBM3', nvmlMiB: 81559, marketedGiB: 80 },
  { gpu: 'H200 (p5e, p5en)', ec2Name: 'H200', ec2MiB: 144384, gfdProduct: 'NVIDIA-H200', nvmlMiB: 143771, marketedGiB: 141 },
  { gpu: 'K80 (p2)', ec2Name: 'K80', ec2MiB: 12288, gfdProduct: 'Tesla-K80', nvmlMiB: 11441, marketedGiB: 12 },
  { gpu: 'L4 (g6)', ec2Name: 'L4', ec2MiB: 22888, gfdProduct: 'NVIDIA-L4', nvmlMiB: 23034, marketedGiB: 24 },
  { gpu: 'L40S (g6e)', ec2Name: 'L40S', ec2MiB: 45776, gfdProduct: 'NVIDIA-L40S', nvmlMiB: 46068, marketedGiB: 48 },
  { gpu: 'M60 (g3)', ec2Name: 'M60', ec2MiB: 8192, gfdProduct: 'Tesla-M60', nvmlMiB: undefined, marketedGiB: 8 },
  { gpu: 'T4 (g4dn)', ec2Name: 'T4', ec2MiB: 16384, gfdProduct: 'Tesla-T4', nvmlMiB: 15360, marketedGiB: 16 },
  { gpu: 'T4G (g5g)', ec2Name: 'T4g', ec2MiB: 16384, gfdProduct: 'NVIDIA-T4G', nvmlMiB: undefined, marketedGiB: 16 },
  { gpu: 'V100 16GB (p3)', ec2Name: 'V100', ec2MiB: 16384, gfdProduct: 'Tesla-V100-SXM2-16GB', nvmlMiB: 16160, marketedGiB: 16 },
  { gpu: 'V100 32GB (p3dn)', ec2Name: 'V100', ec2MiB: 32768, gfdProduct: 'Tesla-V100-SXM2-32GB', nvmlMiB: 32510, marketedGiB: 32 },
];

/** One node per labeller, each with only that labeller's labels. */
function labelled(row: Row): Record<string, Record<string, string>> {
  const ec2 = (prefix: string, name: string) => ({
    [`${prefix}-name`]: name,
    [`${prefix}-manufacturer`]: 'nvidia',
    [`${prefix}-count`]: '8',
    [`${prefix}-memory`]: String(row.ec2MiB),
  });
  return {
    ours: { 'gpu.nvidia.com/model': row.ec2Name, 'gpu.nvidia.com/manufacturer': 'NVIDIA', 'gpu.nvidia.com/count': '8', 'gpu.nvidia.com/memory': String(row.ec2MiB) },
    karpenter: ec2('karpenter.k8s.aws/instance-gpu', row.ec2Name.toLowerCase()),
    'auto-mode': { 'eks.amazonaws.com/compute-type': 'auto', ...ec2('eks.amazonaws.com/instance-gpu', row.ec2Name.toLowerCase()) },
    ...(row.nvmlMiB === undefined ? {} : { gfd: { 'nvidia.com/gpu.product': row.gfdProduct, 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.memory': String(row.nvmlMiB) } }),
  };
}

const node = (name: string, labels: Record<string, string>) => ({
  metadata: { name, labels },
  status: { allocatable: { cpu: '96', memory: '1152Gi', pods: '110', 'nvidia.com/gpu': '8' } },
});
const wants = (memory: string) => ({
  metadata: { name: `wants-${memory}`, namespace: 'default', uid: `uid-${memory}`, annotations: { 'gpu.nvidia.com/memory': memory } },
  spec: { containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
});

/** The verdict of every labeller's node for a pod asking `memory` per GPU. */
function verdicts(row: Row, memory: string) {
  const nodes = labelled(row);
  const run = runPlugin(gpuFit, Object.entries(nodes).map(([name, labels]) => node(name, labels)), wants(memory));
  return Object.fromEntries(Object.keys(nodes).map((name) => [name, run.filter(name)]));
}

describe('GPU memory as users mean it: the marketed size fits, whoever labelled the node', () => {
  it('the table covers every NVIDIA GPU the metrics name', () => {
    const named = GPU_MODELS.filter((model) => model !== 'Unknown' && model !== 'Other');
    expect(Object.keys(MARKETED_GPU_MEMORY_GIB).sort()).toEqual([...named].sort());
    expect(new Set(ROWS.map((row) => row.ec2Name.toUpperCase()))).toEqual(new Set(named));
  });

  it.each(ROWS)('$gpu: $marketedGiB Gi and $marketedGiB G fit on every labeller\'s node, 1 GiB more fits on none', (row) => {
    for (const memory of [`${row.marketedGiB}Gi`, `${row.marketedGiB}G`, String(row.marketedGiB * 1024)]) {
      for (const [labeller, status] of Object.entries(verdicts(row, memory))) expect({ labeller, memory, status }).toEqual({ labeller, memory, status: { ok: true } });
    }
    const more = `${row.marketedGiB + 1}Gi`;
    for (const status of Object.values(verdicts(row, more))) {
      expect(status).toMatchObject({ ok: false, code: 'InsufficientGpuMemory', unresolvable: true });
      expect(status).toHaveProperty('message', expect.stringContaining(`pod wants ${(row.marketedGiB + 1) * 1024} MiB per GPU, node has `));
    }
  });

  it.each([
    ['H100 (p5)', '96Gi'],
    ['H100 (p5)', '141Gi'],
    ['A10G (g5)', '48Gi'],
    ['L4 (g6)', '48Gi'],
    ['T4 (g4dn)', '24Gi'],
    ['A100 40GB (p4d)', '80Gi'],
    ['V100 16GB (p3)', '32Gi'],
  ])('%s: %s is clearly more, rejected on every labeller\'s node', (gpu, memory) => {
    const row = ROWS.find((r) => r.gpu === gpu);
    if (row === undefined) throw new Error(`no row ${gpu}`);
    for (const status of Object.values(verdicts(row, memory))) expect(status).toMatchObject({ ok: false, code: 'InsufficientGpuMemory' });
  });

  it('the rejection shows both numbers: what the node reports and the marketed size it was read as', () => {
    const h100 = ROWS.find((r) => r.gpu === 'H100 (p5)');
    if (h100 === undefined) throw new Error('no H100 row');
    expect(verdicts(h100, '96Gi').gfd).toMatchObject({
      message: 'Not enough GPU memory: pod wants 98304 MiB per GPU, node has 81559 MiB, read as its marketed 80 GiB (81920 MiB)',
    });
    // EC2's figure is the marketed size already: one number.
    expect(verdicts(h100, '96Gi').ours).toMatchObject({ message: 'Not enough GPU memory: pod wants 98304 MiB per GPU, node has 81920 MiB' });
  });

  it('without a model the report is read as the nearest marketed size above only within 8 %', () => {
    const bare = (mib: number) => ({ 'gpu.nvidia.com/memory': String(mib), 'gpu.nvidia.com/count': '8' });
    const run = runPlugin(gpuFit, [node('nvml-t4-like', bare(15360)), node('odd', bare(14000))], wants('16Gi'));
    expect(run.filter('nvml-t4-like')).toEqual({ ok: true });
    expect(run.filter('odd')).toMatchObject({ ok: false, message: 'Not enough GPU memory: pod wants 16384 MiB per GPU, node has 14000 MiB' });
  });
});
