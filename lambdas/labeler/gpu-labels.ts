import type { InstanceTypeGpuInfo } from '../aws';
import type { MetadataPatch } from '../kube';
import { NODE_LABEL } from '../scheduling/keys';

/** The labels the extender reads (spelled by the scheduling library) plus manufacturer and total memory. */
export const GPU_LABEL = {
  model: NODE_LABEL.gpuModel,
  /** MiB per GPU. */
  memory: NODE_LABEL.gpuMemory,
  count: NODE_LABEL.gpuCount,
  manufacturer: NODE_LABEL.gpuManufacturer,
  /** MiB over all GPUs of the node. */
  totalMemory: 'gpu.nvidia.com/total-memory',
} as const;

/** Karpenter's well-known labels (lowercase names, MiB per GPU); off by default. */
export const KARPENTER_GPU_LABEL = {
  name: 'karpenter.k8s.aws/instance-gpu-name',
  manufacturer: 'karpenter.k8s.aws/instance-gpu-manufacturer',
  count: 'karpenter.k8s.aws/instance-gpu-count',
  memory: 'karpenter.k8s.aws/instance-gpu-memory',
} as const;

/** NVIDIA GPU Feature Discovery's labels; off by default. */
export const GFD_GPU_LABEL = {
  product: 'nvidia.com/gpu.product',
  count: 'nvidia.com/gpu.count',
  memory: 'nvidia.com/gpu.memory',
  family: 'nvidia.com/gpu.family',
} as const;

export interface LabelSetOptions {
  /** Also write the Karpenter-style keys. */
  readonly karpenterLabels: boolean;
  /** Also write the GPU Feature Discovery-style keys. */
  readonly gfdLabels: boolean;
  /** GPU manufacturers we label for, compared case-insensitively (default NVIDIA only). */
  readonly manufacturers: readonly string[];
}

/**
 * The keys this labeler owns on a node: it sets them, corrects them and
 * removes them, and never touches any other key. Compatibility keys are owned
 * only while switched on: Karpenter and GFD write the same keys themselves,
 * and switching ours off must not delete theirs.
 */
export function ownedLabelKeys(options: LabelSetOptions): readonly string[] {
  return [
    ...Object.values(GPU_LABEL),
    ...(options.karpenterLabels ? Object.values(KARPENTER_GPU_LABEL) : []),
    ...(options.gfdLabels ? Object.values(GFD_GPU_LABEL) : []),
  ];
}

/** GPU architecture family per model, for GFD's gpu.family (left out when unknown). */
const GPU_FAMILY: Readonly<Record<string, string>> = {
  k80: 'kepler',
  m60: 'maxwell',
  v100: 'volta',
  t4: 'turing',
  t4g: 'turing',
  a100: 'ampere',
  a10g: 'ampere',
  a10: 'ampere',
  l4: 'ada-lovelace',
  l40s: 'ada-lovelace',
  h100: 'hopper',
  h200: 'hopper',
  b200: 'blackwell',
  gb200: 'blackwell',
};

/**
 * The labels a node with this instance type should carry. Empty when the type
 * has no GPUs of a labelled manufacturer. Should EC2 ever report several GPU
 * kinds for one type, the most numerous one is labelled.
 */
export function desiredGpuLabels(info: InstanceTypeGpuInfo, options: LabelSetOptions): Record<string, string> {
  const wanted = new Set(options.manufacturers.map((m) => m.toLowerCase()));
  const gpus = info.gpus.filter((g) => wanted.has(g.manufacturer.toLowerCase()) && g.count > 0);
  const main = gpus.reduce<(typeof gpus)[number] | undefined>((best, g) => (best === undefined || g.count > best.count ? g : best), undefined);
  if (main === undefined) return {};

  const model = toLabelValue(main.name);
  const manufacturer = toLabelValue(main.manufacturer);
  const count = String(main.count);
  const memory = String(main.memoryMiB);
  const labels: Record<string, string> = {
    [GPU_LABEL.model]: model,
    [GPU_LABEL.memory]: memory,
    [GPU_LABEL.count]: count,
    [GPU_LABEL.manufacturer]: manufacturer,
    [GPU_LABEL.totalMemory]: String(info.totalMemoryMiB > 0 ? info.totalMemoryMiB : main.count * main.memoryMiB),
  };
  if (options.karpenterLabels) {
    labels[KARPENTER_GPU_LABEL.name] = model.toLowerCase();
    labels[KARPENTER_GPU_LABEL.manufacturer] = manufacturer.toLowerCase();
    labels[KARPENTER_GPU_LABEL.count] = count;
    labels[KARPENTER_GPU_LABEL.memory] = memory;
  }
  if (options.gfdLabels) {
    // GFD's product is the full marketing name (e.g. NVIDIA-A100-SXM4-40GB) read from the
    // driver; EC2 only knows the short model, so ours is "<manufacturer>-<model>".
    labels[GFD_GPU_LABEL.product] = toLabelValue(`${main.manufacturer}-${main.name}`);
    labels[GFD_GPU_LABEL.count] = count;
    labels[GFD_GPU_LABEL.memory] = memory;
    const family = GPU_FAMILY[main.name.toLowerCase()];
    if (family !== undefined) labels[GFD_GPU_LABEL.family] = family;
  }
  return labels;
}

/**
 * A valid label value: at most 63 characters of [A-Za-z0-9-_.], starting and
 * ending alphanumeric. EC2 names are already like that; this guards the rest.
 */
export function toLabelValue(text: string): string {
  const cleaned = text
    .trim()
    .replace(/[^A-Za-z0-9\-_.]+/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
  return cleaned === '' ? 'unknown' : cleaned;
}

/**
 * The smallest merge patch that brings the owned keys of `current` to
 * `desired`: changed or missing keys are set, owned keys not desired are
 * removed (null), every other key is left out. Undefined when nothing differs.
 */
export function labelPatch(
  current: Readonly<Record<string, string>> | undefined,
  desired: Readonly<Record<string, string>>,
  ownedKeys: readonly string[],
): MetadataPatch | undefined {
  const patch: Record<string, string | null> = {};
  const existing = current ?? {};
  for (const key of ownedKeys) {
    const want = desired[key];
    const have = existing[key];
    if (want !== undefined && want !== have) patch[key] = want;
    if (want === undefined && have !== undefined) patch[key] = null;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
