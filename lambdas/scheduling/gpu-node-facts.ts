import type { DraNodeGpus, DraTaintedGpu } from './dra-gpus';
import { canonicalModel, REPORTED_MEMORY_TOLERANCE } from './gpu-model';
import { AUTO_MODE_LABEL, GFD_LABEL, GPU_RESOURCE, KARPENTER_LABEL, MIG_RESOURCE_PREFIX, NODE_LABEL, NVIDIA_DRA_DRIVER, SHARED_GPU_RESOURCE } from './keys';
import { parseCount, parseMiB } from './quantity';
import { NVIDIA_DRA_DEVICE } from './dra-gpus';
import { GPU_NODE_LIMITS } from './gpu-node-limits';

const DRA_PRODUCT = NVIDIA_DRA_DEVICE.productAttribute;
const DRA_MEMORY = NVIDIA_DRA_DEVICE.memoryCapacity;

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
  /** As the winning labeller wrote it: ours, else Karpenter's, else Auto Mode's, else GPU Feature Discovery's. */
  readonly model: string | undefined;
  /** Memory of each device in MiB (of each MIG device with MIG `single`). */
  readonly memoryMiB: number | undefined;
  /** Devices the placement model tracks: physical GPUs, or MIG devices with MIG `single`. */
  readonly devices: number;
  /** Of the devices, those ResourceClaims hold (DRA nodes only; see DraNodeGpus.claimed). */
  readonly claimed: number;
  readonly sharing: GpuSharing | undefined;
  readonly mig: MigLayout | undefined;
  /** Set when a number is outside physical bounds: the node is then rejected for GPU pods (InvalidNodeData), with these problems as the detail. */
  readonly invalid: string | undefined;
  /**
   * Physical GPUs the labels name that the device plugin does not hand out
   * (allocatable below the labelled count: it withholds a GPU it found
   * unhealthy); 0 on shared, MIG and DRA nodes, where the two do not count
   * the same things.
   */
  readonly unallocatable: number;
  /** On a node whose GPUs come from its ResourceSlices: the GPUs a NoSchedule taint withholds, and the taints of effect None. */
  readonly draWithheld: readonly DraTaintedGpu[];
  readonly draWarnings: readonly DraTaintedGpu[];
}

const NONE: readonly DraTaintedGpu[] = Object.freeze([]);


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
 * Who says what about a node's GPUs, and who wins. One table for the whole
 * library; docs/extender.md ("Who labelled the node") says the same.
 *
 * | Fact | Sources, winner first | Disagreement (node alone → InvalidNodeData) |
 * |---|---|---|
 * | model | ours `gpu.nvidia.com/model`, Karpenter `karpenter.k8s.aws/instance-gpu-name`, Auto Mode `eks.amazonaws.com/instance-gpu-name`, GFD `nvidia.com/gpu.product` | two names of different canonical models (`A100` vs `H100`) |
 * | physical GPUs | ours `gpu.nvidia.com/count`, Karpenter `…-count`, Auto Mode `…-count`, GFD `nvidia.com/gpu.count` (not with MIG `single`, where it counts slices) | two different numbers |
 * | devices placed | allocatable `nvidia.com/gpu` (what the device plugin hands out; fewer than the labels when a GPU is unhealthy, more when time-sliced), else the node's DRA GPUs (below), else the count above | never compared: both differences are real |
 * | memory per GPU | ours, Karpenter, Auto Mode (EC2's MiB), then GFD (NVML's MiB); with MIG `single` GFD's per-slice MiB, else the profile's | two numbers more than REPORTED_MEMORY_TOLERANCE apart (EC2 and NVML differ by up to 6.25 % for one GPU; 40 vs 80 GiB do not) |
 * | sharing | GFD `nvidia.com/gpu.sharing-strategy`, `gpu.replicas` and allocatable (only they know it) | — |
 * | MIG | GFD `nvidia.com/mig.strategy`, the `-MIG-<profile>` product suffix, allocatable `nvidia.com/mig-*` | — |
 *
 * GPUs from DRA (NVIDIA's driver `gpu.nvidia.com`, see dra-gpus.ts) count
 * only on a node whose allocatable has no `nvidia.com/gpu` (the device
 * plugin, when present, is what hands out `nvidia.com/gpu`). There the
 * ResourceSlices' full GPUs without a NoSchedule or NoExecute taint are the
 * devices placed (like allocatable, never
 * compared with the labels' count); their `productName` and `memory` come
 * after every label above (labels name the model the same way on DRA and
 * device-plugin nodes) and must agree with them by the same rules (canonical
 * model; memory within REPORTED_MEMORY_TOLERANCE), else the node alone is
 * InvalidNodeData. Invalid slices (see draGpusByNode) make the node invalid.
 *
 * Ours, Karpenter's and Auto Mode's labels are each ignored as a whole when
 * their manufacturer label names another maker (`amd` on g4ad): such a node
 * is not an NVIDIA GPU node here. Foreign labels are only read, never written.
 * Unparseable labels count as unknown; numbers outside physical bounds and
 * contradicting labellers make the node invalid (never a crash, never a huge
 * allocation, never another node).
 */
interface LabelSource {
  readonly model: string;
  readonly count: string;
  readonly memory: string;
  /** Absent for GFD, which only runs on NVIDIA nodes. */
  readonly manufacturer: string | undefined;
}

/** Winner first; the EC2-fed labellers before GFD's NVML figures. */
const LABEL_SOURCES: readonly LabelSource[] = [
  { model: NODE_LABEL.gpuModel, count: NODE_LABEL.gpuCount, memory: NODE_LABEL.gpuMemory, manufacturer: NODE_LABEL.gpuManufacturer },
  { model: KARPENTER_LABEL.gpuName, count: KARPENTER_LABEL.gpuCount, memory: KARPENTER_LABEL.gpuMemory, manufacturer: KARPENTER_LABEL.gpuManufacturer },
  { model: AUTO_MODE_LABEL.gpuName, count: AUTO_MODE_LABEL.gpuCount, memory: AUTO_MODE_LABEL.gpuMemory, manufacturer: AUTO_MODE_LABEL.gpuManufacturer },
  { model: GFD_LABEL.product, count: GFD_LABEL.count, memory: GFD_LABEL.memory, manufacturer: undefined },
];

/** One labeller's reading: the key it was read from with the value, so a disagreement can name both. */
interface Reading<T> {
  readonly key: string;
  readonly text: string;
  readonly value: T;
}

/** The first reading wins; a later one that `agree`s not with it is a problem naming both. */
function winner<T>(what: string, readings: readonly Reading<T>[], agree: (a: T, b: T) => boolean, problems: string[]): T | undefined {
  const [first, ...rest] = readings;
  if (first === undefined) return undefined;
  for (const other of rest) {
    if (!agree(first.value, other.value)) {
      problems.push(`labellers disagree on the GPU ${what}: ${first.key}=${JSON.stringify(first.text)}, ${other.key}=${JSON.stringify(other.text)}`);
    }
  }
  return first.value;
}

function memoryAgrees(a: number, b: number): boolean {
  return Math.min(a, b) >= Math.max(a, b) * (1 - REPORTED_MEMORY_TOLERANCE);
}

/**
 * Reads model, memory, counts and sharing from the labellers in the order of
 * the table above, so a node is placeable from the moment any of them has
 * labelled it.
 */
export function readGpuNodeFacts(
  labels: Readonly<Record<string, string>>,
  allocatable: Readonly<Record<string, string>>,
  /** The node's GPUs in NVIDIA's ResourceSlices, when it has any. */
  dra?: DraNodeGpus,
): GpuNodeFacts {
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
  const migStrategy = labels[GFD_LABEL.migStrategy];
  const singleProfile = product === undefined ? undefined : MIG_PRODUCT_SUFFIX.exec(product)?.[1]?.toLowerCase();
  const migSingle = migStrategy === 'single' || (migStrategy === undefined && singleProfile !== undefined);

  const models: Reading<string>[] = [];
  const counts: Reading<number>[] = [];
  const memories: Reading<number>[] = [];
  for (const source of LABEL_SOURCES) {
    const maker = nonEmpty(labels[source.manufacturer ?? '']);
    if (maker !== undefined && maker.toLowerCase() !== 'nvidia') continue;
    const isGfd = source.model === GFD_LABEL.product;
    const model = nonEmpty(labels[source.model]);
    if (model !== undefined) models.push({ key: source.model, text: model, value: canonicalModel(model) });
    // GFD's count and memory describe MIG slices with the `single` strategy, not GPUs: read below.
    if (isGfd && migSingle) continue;
    const count = label(source.count, GPU_NODE_LIMITS.physicalGpus);
    if (count !== undefined) counts.push({ key: source.count, text: labels[source.count] ?? '', value: count });
    const memory = label(source.memory, GPU_NODE_LIMITS.memoryMiB, parseMiB);
    if (memory !== undefined) memories.push({ key: source.memory, text: labels[source.memory] ?? '', value: memory });
  }
  // The slices count only where the device plugin does not hand out nvidia.com/gpu (KEP-5004 serves it from them).
  const fromDra = dra !== undefined && allocatable[GPU_RESOURCE] === undefined && allocatable[SHARED_GPU_RESOURCE] === undefined && !migSingle;
  if (fromDra) {
    if (dra.invalid !== undefined) problems.push(`ResourceSlices of ${NVIDIA_DRA_DRIVER}: ${dra.invalid}`);
    if (dra.model !== undefined) models.push({ key: `ResourceSlice ${DRA_PRODUCT}`, text: dra.model, value: canonicalModel(dra.model) });
    if (dra.memoryMiB !== undefined) memories.push({ key: `ResourceSlice ${DRA_MEMORY}`, text: `${dra.memoryMiB}Mi`, value: dra.memoryMiB });
  }
  // Compared by canonical model; a name with no model word (GFD's bare `MIG-1g.5gb`) contradicts nothing.
  winner('model', models, (a, b) => a === '' || b === '' || a === b, problems);
  const model = models[0]?.text;
  const physical = winner('count', counts, (a, b) => a === b, problems);
  const gpuMemory = winner('memory', memories, memoryAgrees, problems);

  const sliceMemory = migSingle ? label(GFD_LABEL.memory, GPU_NODE_LIMITS.memoryMiB, parseMiB) : undefined;
  const memoryMiB = migSingle ? (sliceMemory ?? (singleProfile === undefined ? undefined : migProfileMemoryMiB(singleProfile))) : gpuMemory;
  const gfdCount = migSingle ? label(GFD_LABEL.count, GPU_NODE_LIMITS.devices) : undefined;

  const allocGpu = bounded(`allocatable ${GPU_RESOURCE}`, allocatable[GPU_RESOURCE], migSingle ? GPU_NODE_LIMITS.devices : GPU_NODE_LIMITS.sharedUnits);
  const allocShared = bounded(`allocatable ${SHARED_GPU_RESOURCE}`, allocatable[SHARED_GPU_RESOURCE], GPU_NODE_LIMITS.sharedUnits);
  const replicasLabel = label(GFD_LABEL.replicas, GPU_NODE_LIMITS.replicas);
  const strategyLabel = labels[GFD_LABEL.sharingStrategy];
  const strategy: GpuSharing['strategy'] = strategyLabel === 'mps' ? 'mps' : 'time-slicing';

  let devices: number;
  let sharing: GpuSharing | undefined;
  let mig: MigLayout | undefined;
  let unallocatable = 0;
  if (fromDra) {
    devices = dra.devices;
  } else if (migSingle) {
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
      if (allocGpu !== undefined && physical !== undefined && allocGpu < physical) unallocatable = physical - allocGpu;
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
    claimed: invalid === undefined && fromDra ? dra.claimed : 0,
    sharing: invalid === undefined ? sharing : undefined,
    mig: invalid === undefined ? mig : undefined,
    invalid,
    unallocatable: invalid === undefined ? unallocatable : 0,
    draWithheld: invalid === undefined && fromDra ? dra.withheld : NONE,
    draWarnings: invalid === undefined && fromDra ? dra.warnings : NONE,
  };
}
