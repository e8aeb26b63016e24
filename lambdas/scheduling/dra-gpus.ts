import type { GpuClaim } from './dra-claims';
import { canonicalModel, REPORTED_MEMORY_TOLERANCE } from './gpu-model';
import { GPU_NODE_LIMITS } from './gpu-node-limits';
import { NVIDIA_DRA_DRIVER } from './keys';
import { isRecord, metadataOf, stringField } from './kube-json';
import { parseBytes } from './quantity';

/**
 * GPUs a Dynamic Resource Allocation driver publishes as ResourceSlices
 * (resource.k8s.io/v1). With KEP-5004 (beta, on by default in Kubernetes
 * 1.36) a DeviceClass with `extendedResourceName: nvidia.com/gpu` serves
 * plain `nvidia.com/gpu` requests from these devices, one device per unit,
 * and the node has no `nvidia.com/gpu` in allocatable: the slices are then
 * the only place that says how many GPUs it has.
 */

/** Lists only NVIDIA's ResourceSlices: the API server filters by driver, so other drivers' slices are never read. */
export const NVIDIA_DRA_SLICE_FIELD_SELECTOR = `spec.driver=${NVIDIA_DRA_DRIVER}`;

/** What the driver writes on each full-GPU device (cmd/gpu-kubelet-plugin/deviceinfo.go, GpuInfo.Attributes and fullGpuCapacity). */
export const NVIDIA_DRA_DEVICE = {
  /** Attribute `type`: `gpu` for a full GPU; MIG devices (`mig`) and VFIO passthrough (`vfio`) are not placed here. */
  typeAttribute: 'type',
  gpuType: 'gpu',
  /** Attribute `productName`, NVML's name, e.g. `NVIDIA H100 80GB HBM3`. */
  productAttribute: 'productName',
  /** Capacity `memory`: NVML's total in bytes as a binary quantity, e.g. `81559Mi`. */
  memoryCapacity: 'memory',
} as const;

/** A slice's device has this many devices at most (the API server's limit per ResourceSlice is 128); more is not a real slice. */
const MAX_DEVICES_PER_SLICE = 128;

/** Taints kept per device: the API server allows a handful, more is not a real slice's. */
const MAX_TAINTS_PER_DEVICE = 16;

/** A device taint (resource.k8s.io/v1 DeviceTaint) as the inventory reads it. */
export interface DraDeviceTaint {
  readonly key: string;
  readonly value: string | undefined;
  /** `NoSchedule`, `NoExecute` or `None`; an effect the inventory does not know counts as None, as the API asks of consumers. */
  readonly effect: string;
  /** When the taint was added (RFC 3339), if the slice says. */
  readonly timeAdded: string | undefined;
}

/** Whether a taint keeps new pods off its device: NoSchedule, and NoExecute, which implies it (KEP-5055). */
export function taintBlocksDevice(taint: DraDeviceTaint): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

/** One full-GPU device of a slice, as the inventory reads it. */
export interface DraGpuDevice {
  readonly name: string;
  readonly productName: string | undefined;
  /** The `memory` capacity as written (a quantity), undefined when absent. */
  readonly memory: string | undefined;
  /** Its taints (NVIDIA's driver taints a GPU that reported a fault, see gpu-health-reasons.ts DRA_TAINT). */
  readonly taints: readonly DraDeviceTaint[];
}

/** One device's taint, named with its device, for what the node's health says. */
export interface DraTaintedGpu {
  readonly device: string;
  readonly taint: DraDeviceTaint;
}

/** A ResourceSlice of NVIDIA's driver reduced to what the inventory reads. */
export interface DraGpuSlice {
  readonly name: string;
  readonly nodeName: string;
  readonly pool: string;
  readonly generation: number;
  /** Its full-GPU devices (`type: gpu`), at most MAX_DEVICES_PER_SLICE + 1 kept. */
  readonly gpus: readonly DraGpuDevice[];
  /** Set when the slice itself is malformed (too many devices): its node is then rejected. */
  readonly invalid: string | undefined;
}

/** What a node's ResourceSlices say about its GPUs. */
export interface DraNodeGpus {
  /**
   * Full GPUs in the newest generation of each of the node's pools that new
   * pods may get: those with a NoSchedule or NoExecute taint are left out,
   * as kube-scheduler's allocator leaves them out (DRADeviceTaints, beta
   * and on by default from Kubernetes 1.36).
   */
  readonly devices: number;
  /** The GPUs left out of `devices` for a taint, each with its first such taint. */
  readonly withheld: readonly DraTaintedGpu[];
  /** Taints of effect None (or unknown) on the GPUs in `devices`: they still take pods, but the driver says something is wrong. */
  readonly warnings: readonly DraTaintedGpu[];
  /**
   * Of those, the GPUs allocated to ResourceClaims (see dra-claims.ts), each
   * counted once however many pods share its claim; not the claims
   * kube-scheduler makes for KEP-5004 requests, whose pods' `nvidia.com/gpu`
   * requests count them.
   */
  readonly claimed: number;
  /** productName as the driver wrote it (the same on every device, else `invalid`). */
  readonly model: string | undefined;
  /** Memory per GPU in MiB (NVML's total). */
  readonly memoryMiB: number | undefined;
  /** Why the slices cannot be trusted: the node is then rejected for GPU pods (InvalidNodeData). */
  readonly invalid: string | undefined;
}

function attributeString(attributes: unknown, key: string): string | undefined {
  const attribute = isRecord(attributes) ? attributes[key] : undefined;
  const text = isRecord(attribute) ? stringField(attribute.string) : undefined;
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function capacityValue(capacity: unknown, key: string): string | undefined {
  const entry = isRecord(capacity) ? capacity[key] : undefined;
  return isRecord(entry) ? stringField(entry.value) : undefined;
}

function taintsOf(value: unknown): DraDeviceTaint[] {
  if (!Array.isArray(value)) return [];
  const taints: DraDeviceTaint[] = [];
  for (const taint of value.slice(0, MAX_TAINTS_PER_DEVICE) as unknown[]) {
    if (!isRecord(taint)) continue;
    const key = stringField(taint.key);
    if (key === undefined || key === '') continue;
    taints.push({ key, value: stringField(taint.value), effect: stringField(taint.effect) ?? 'None', timeAdded: stringField(taint.timeAdded) });
  }
  return taints;
}

/**
 * A ResourceSlice of NVIDIA's driver for one node, reduced; undefined for any
 * other slice (another driver, a slice for all nodes or a node selector,
 * malformed JSON), which the inventory ignores.
 */
export function draGpuSliceFromKubernetes(slice: unknown): DraGpuSlice | undefined {
  if (!isRecord(slice) || !isRecord(slice.spec)) return undefined;
  const spec = slice.spec;
  if (stringField(spec.driver) !== NVIDIA_DRA_DRIVER) return undefined;
  const nodeName = stringField(spec.nodeName);
  const name = stringField(metadataOf(slice).name);
  const pool = isRecord(spec.pool) ? spec.pool : undefined;
  const poolName = stringField(pool?.name);
  const generation = typeof pool?.generation === 'number' && Number.isSafeInteger(pool.generation) ? pool.generation : 0;
  if (nodeName === undefined || nodeName === '' || name === undefined || poolName === undefined) return undefined;
  const devices = Array.isArray(spec.devices) ? (spec.devices as unknown[]) : [];
  const gpus: DraGpuDevice[] = [];
  let invalid: string | undefined;
  if (devices.length > MAX_DEVICES_PER_SLICE) {
    invalid = `ResourceSlice ${name} lists ${devices.length} devices, more than ${MAX_DEVICES_PER_SLICE}`;
  } else {
    for (const device of devices) {
      if (!isRecord(device)) continue;
      if (attributeString(device.attributes, NVIDIA_DRA_DEVICE.typeAttribute) !== NVIDIA_DRA_DEVICE.gpuType) continue;
      gpus.push({
        name: stringField(device.name) ?? '',
        productName: attributeString(device.attributes, NVIDIA_DRA_DEVICE.productAttribute),
        memory: capacityValue(device.capacity, NVIDIA_DRA_DEVICE.memoryCapacity),
        taints: taintsOf(device.taints),
      });
    }
  }
  return { name, nodeName, pool: poolName, generation, gpus, invalid };
}

/**
 * Per node name, what its slices say. Of each pool only the slices of its
 * newest generation count: the driver publishes a new generation when the
 * node's devices change, and the old slices linger until it deletes them.
 * Every device must name its product and memory, all of one model and
 * (within REPORTED_MEMORY_TOLERANCE) one size; counts and sizes outside
 * physical bounds make the node invalid, never another node.
 */
export function draGpusByNode(slices: Iterable<DraGpuSlice>, claims: Iterable<GpuClaim> = []): ReadonlyMap<string, DraNodeGpus> {
  const newest = new Map<string, Map<string, DraGpuSlice[]>>();
  for (const slice of slices) {
    let pools = newest.get(slice.nodeName);
    if (pools === undefined) newest.set(slice.nodeName, (pools = new Map()));
    const held = pools.get(slice.pool);
    const heldGeneration = held?.[0]?.generation;
    if (heldGeneration === undefined || slice.generation > heldGeneration) pools.set(slice.pool, [slice]);
    else if (slice.generation === heldGeneration) held?.push(slice);
  }
  const claimed = claimedByNode(newest, claims);
  const result = new Map<string, DraNodeGpus>();
  for (const [nodeName, pools] of newest) {
    const current = [...pools.values()].flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const node = readNode(current);
    result.set(nodeName, { ...node, claimed: Math.min(node.devices, claimed.get(nodeName)?.size ?? 0) });
  }
  return result;
}

/**
 * Per node, the full GPUs (`pool/device`) that claims hold: a claim's
 * allocation names the pool and the device, and only a device the pool's
 * current slices list as a full GPU counts (a MIG device or a stale name
 * takes no GPU here).
 */
function claimedByNode(newest: ReadonlyMap<string, ReadonlyMap<string, readonly DraGpuSlice[]>>, claims: Iterable<GpuClaim>): Map<string, Set<string>> {
  const gpusOfPool = new Map<string, { readonly node: string; readonly names: ReadonlySet<string> }>();
  for (const [node, pools] of newest) {
    // A withheld GPU is not among the node's devices: a claim on it takes none of them.
    const usable = (slices: readonly DraGpuSlice[]) => slices.flatMap((s) => s.gpus.filter((g) => !g.taints.some(taintBlocksDevice)).map((g) => g.name));
    for (const [pool, slices] of pools) gpusOfPool.set(pool, { node, names: new Set(usable(slices)) });
  }
  const byNode = new Map<string, Set<string>>();
  for (const claim of claims) {
    if (claim.extendedResource) continue;
    for (const { pool, device } of claim.allocated) {
      const gpus = gpusOfPool.get(pool);
      if (gpus === undefined || !gpus.names.has(device)) continue;
      let held = byNode.get(gpus.node);
      if (held === undefined) byNode.set(gpus.node, (held = new Set()));
      held.add(`${pool}/${device}`);
    }
  }
  return byNode;
}

function readNode(slices: readonly DraGpuSlice[]): Omit<DraNodeGpus, 'claimed'> {
  const problems: string[] = [];
  const gpus: DraGpuDevice[] = [];
  for (const slice of slices) {
    if (slice.invalid !== undefined) problems.push(slice.invalid);
    else gpus.push(...slice.gpus);
  }
  if (gpus.length > GPU_NODE_LIMITS.physicalGpus) problems.push(`${gpus.length} GPU devices in ResourceSlices is more than ${GPU_NODE_LIMITS.physicalGpus}`);
  let model: string | undefined;
  let memoryMiB: number | undefined;
  for (const gpu of gpus.slice(0, GPU_NODE_LIMITS.physicalGpus)) {
    if (gpu.productName === undefined) {
      problems.push(`device ${JSON.stringify(gpu.name)} has no ${NVIDIA_DRA_DEVICE.productAttribute}`);
      continue;
    }
    if (model === undefined) model = gpu.productName;
    else if (canonicalModel(model) !== canonicalModel(gpu.productName)) {
      problems.push(`devices of different models: ${JSON.stringify(model)}, ${JSON.stringify(gpu.productName)}`);
    }
    // Bytes, as the driver writes them (a bare number is bytes here, not MiB as in our labels).
    const bytes = gpu.memory === undefined ? undefined : parseBytes(gpu.memory);
    const mib = bytes === undefined ? undefined : Math.ceil(bytes / 2 ** 20);
    if (mib === undefined || !(mib > 0 && mib <= GPU_NODE_LIMITS.memoryMiB)) {
      problems.push(`device ${JSON.stringify(gpu.name)} has ${gpu.memory === undefined ? 'no' : `an impossible (${JSON.stringify(gpu.memory)})`} ${NVIDIA_DRA_DEVICE.memoryCapacity} capacity`);
      continue;
    }
    if (memoryMiB === undefined) memoryMiB = mib;
    else if (Math.min(memoryMiB, mib) < Math.max(memoryMiB, mib) * (1 - REPORTED_MEMORY_TOLERANCE)) {
      problems.push(`devices of different memory: ${memoryMiB} MiB, ${mib} MiB`);
    }
  }
  // One problem per kind is enough to say why; 64 identical lines are not.
  const invalid = problems.length === 0 ? undefined : [...new Set(problems)].slice(0, 3).join('; ');
  if (invalid !== undefined) return { devices: 0, withheld: [], warnings: [], model, memoryMiB, invalid };
  const withheld: DraTaintedGpu[] = [];
  const warnings: DraTaintedGpu[] = [];
  for (const gpu of gpus) {
    const blocking = gpu.taints.find(taintBlocksDevice);
    if (blocking !== undefined) withheld.push({ device: gpu.name, taint: blocking });
    else for (const taint of gpu.taints) warnings.push({ device: gpu.name, taint });
  }
  return { devices: gpus.length - withheld.length, withheld, warnings, model, memoryMiB, invalid };
}
