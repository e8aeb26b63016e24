import { GFD_LABEL, GPU_RESOURCE, KARPENTER_LABEL, MIG_RESOURCE_PREFIX, NODE_LABEL, SHARED_GPU_RESOURCE } from './keys';
import { parseCount, parseMiB } from './quantity';

/** Time-slicing or MPS: each physical GPU is advertised as `replicas` units of `resource`. */
export interface GpuSharing {
  readonly strategy: 'time-slicing' | 'mps';
  /** Units per physical GPU (allocatable ÷ physical GPUs when no label says). */
  readonly replicas: number;
  /** The resource the units are advertised as: nvidia.com/gpu, or nvidia.com/gpu.shared when renamed. */
  readonly resource: string;
}

/** One MIG device type of the `mixed` strategy, e.g. profile `1g.10gb`, resource `nvidia.com/mig-1g.10gb`. */
export interface MigDeviceType {
  readonly profile: string;
  readonly resource: string;
  readonly count: number;
  /** MiB of each device (GFD's `nvidia.com/mig-<profile>.memory`, else the profile's GB). */
  readonly memoryMiB: number;
}

export type MigLayout =
  | { readonly strategy: 'single'; readonly profile: string | undefined }
  | { readonly strategy: 'mixed'; readonly types: readonly MigDeviceType[] };

/** What a node's labels and allocatable say about its GPUs, whoever wrote them. */
export interface GpuNodeFacts {
  /** As the winning labeller wrote it: ours, else Karpenter's, else GPU Feature Discovery's. */
  readonly model: string | undefined;
  /** Memory of each device in MiB (of each MIG device with MIG `single`). */
  readonly memoryMiB: number | undefined;
  /** Devices the placement model tracks: physical GPUs, or MIG devices with MIG `single`. */
  readonly devices: number;
  readonly sharing: GpuSharing | undefined;
  readonly mig: MigLayout | undefined;
  /** Set when a number is outside physical bounds: the node is then rejected for GPU pods (InvalidNodeData), with these problems as the detail. */
  readonly invalid: string | undefined;
}

/** Physical bounds; a node beyond them reports nonsense (any node can write its own status). */
export const GPU_NODE_LIMITS = {
  physicalGpus: 64,
  /** MIG devices with the `single` strategy: 7 per GPU at most. */
  devices: 64 * 7,
  /** Units of a shared resource (time-slicing replicas × GPUs). */
  sharedUnits: 64 * 1024,
  replicas: 1024,
  memoryMiB: 1024 * 1024,
} as const;

const MIG_PRODUCT_SUFFIX = /-MIG-(\d+g\.\d+gb)$/i;
const MIG_PROFILE = /^(\d+)g\.(\d+)gb$/i;

/** The nominal memory of a MIG profile name (`3g.40gb` → 40960 MiB). */
export function migProfileMemoryMiB(profile: string): number | undefined {
  const match = MIG_PROFILE.exec(profile);
  return match ? Number(match[2]) * 1024 : undefined;
}

function nonEmpty(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * Reads model, memory, counts and sharing from our labels, else Karpenter's,
 * else GPU Feature Discovery's, so a node is placeable from the moment any of
 * them has labelled it. Where they disagree ours win, except that with MIG
 * `single` a device is a MIG slice and GFD's per-slice memory is the truth.
 * Unparseable labels count as unknown; numbers outside physical bounds make
 * the node invalid (never a crash, never a huge allocation).
 */
export function readGpuNodeFacts(labels: Readonly<Record<string, string>>, allocatable: Readonly<Record<string, string>>): GpuNodeFacts {
  const problems: string[] = [];
  const bounded = (what: string, text: string | undefined, max: number, parse: (t: string) => number | undefined = parseCount): number | undefined => {
    if (text === undefined) return undefined;
    const value = parse(text);
    if (value === undefined) return undefined;
    if (!(value >= 0 && value <= max)) {
      problems.push(`${what}=${JSON.stringify(text)} is outside 0..${max}`);
      return undefined;
    }
    return value;
  };
  const label = (key: string, max: number, parse?: (t: string) => number | undefined) => bounded(`label ${key}`, labels[key], max, parse);

  const product = nonEmpty(labels[GFD_LABEL.product]);
  const model = nonEmpty(labels[NODE_LABEL.gpuModel]) ?? nonEmpty(labels[KARPENTER_LABEL.gpuName]) ?? product;
  const migStrategy = labels[GFD_LABEL.migStrategy];
  const singleProfile = product === undefined ? undefined : MIG_PRODUCT_SUFFIX.exec(product)?.[1]?.toLowerCase();
  const migSingle = migStrategy === 'single' || (migStrategy === undefined && singleProfile !== undefined);

  const ourMemory = label(NODE_LABEL.gpuMemory, GPU_NODE_LIMITS.memoryMiB, parseMiB);
  const karpenterMemory = label(KARPENTER_LABEL.gpuMemory, GPU_NODE_LIMITS.memoryMiB, parseMiB);
  const gfdMemory = label(GFD_LABEL.memory, GPU_NODE_LIMITS.memoryMiB, parseMiB);
  const memoryMiB = migSingle
    ? (gfdMemory ?? (singleProfile === undefined ? undefined : migProfileMemoryMiB(singleProfile)))
    : (ourMemory ?? karpenterMemory ?? gfdMemory);

  const gfdCount = label(GFD_LABEL.count, migSingle ? GPU_NODE_LIMITS.devices : GPU_NODE_LIMITS.physicalGpus);
  const physical =
    label(NODE_LABEL.gpuCount, GPU_NODE_LIMITS.physicalGpus) ?? label(KARPENTER_LABEL.gpuCount, GPU_NODE_LIMITS.physicalGpus) ?? (migSingle ? undefined : gfdCount);

  const allocGpu = bounded(`allocatable ${GPU_RESOURCE}`, allocatable[GPU_RESOURCE], migSingle ? GPU_NODE_LIMITS.devices : GPU_NODE_LIMITS.sharedUnits);
  const allocShared = bounded(`allocatable ${SHARED_GPU_RESOURCE}`, allocatable[SHARED_GPU_RESOURCE], GPU_NODE_LIMITS.sharedUnits);
  const replicasLabel = label(GFD_LABEL.replicas, GPU_NODE_LIMITS.replicas);
  const strategyLabel = labels[GFD_LABEL.sharingStrategy];
  const strategy: GpuSharing['strategy'] = strategyLabel === 'mps' ? 'mps' : 'time-slicing';

  let devices: number;
  let sharing: GpuSharing | undefined;
  let mig: MigLayout | undefined;
  if (migSingle) {
    devices = allocGpu ?? gfdCount ?? 0;
    mig = { strategy: 'single', profile: singleProfile };
  } else if (allocShared !== undefined && allocShared > 0) {
    const replicas = replicasLabel ?? (physical ? allocShared / physical : 1);
    devices = physical ?? Math.ceil(allocShared / Math.max(1, replicas));
    if (replicas > 1) sharing = { strategy, replicas, resource: SHARED_GPU_RESOURCE };
  } else {
    const shared = strategyLabel === 'time-slicing' || strategyLabel === 'mps' || (physical !== undefined && allocGpu !== undefined && allocGpu > physical);
    const replicas = replicasLabel ?? (shared && physical && allocGpu !== undefined ? allocGpu / physical : 1);
    if (shared && replicas > 1) {
      // Advertised units are replicas: model the physical GPUs, each unit a share of one.
      devices = physical ?? Math.ceil((allocGpu ?? 0) / replicas);
      sharing = { strategy, replicas, resource: GPU_RESOURCE };
    } else {
      // What the device plugin offers; the labels only when it says nothing.
      devices = allocGpu ?? physical ?? 0;
    }
  }

  const migTypes: MigDeviceType[] = [];
  for (const [resource, text] of Object.entries(allocatable)) {
    if (!resource.startsWith(MIG_RESOURCE_PREFIX)) continue;
    const profile = resource.slice(MIG_RESOURCE_PREFIX.length).toLowerCase();
    const count = bounded(`allocatable ${resource}`, text, GPU_NODE_LIMITS.devices);
    const memory = label(`nvidia.com/mig-${profile}.memory`, GPU_NODE_LIMITS.memoryMiB, parseMiB) ?? migProfileMemoryMiB(profile);
    if (count !== undefined && count > 0 && memory !== undefined) migTypes.push({ profile, resource, count, memoryMiB: memory });
  }
  if (!migSingle && (migTypes.length > 0 || migStrategy === 'mixed')) mig = { strategy: 'mixed', types: migTypes };

  if (devices > GPU_NODE_LIMITS.devices) {
    problems.push(`${devices} GPU devices is more than ${GPU_NODE_LIMITS.devices}`);
  }
  const invalid = problems.length === 0 ? undefined : problems.join('; ');
  return {
    model,
    memoryMiB,
    devices: invalid === undefined ? Math.floor(devices) : 0,
    sharing: invalid === undefined ? sharing : undefined,
    mig: invalid === undefined ? mig : undefined,
    invalid,
  };
}
