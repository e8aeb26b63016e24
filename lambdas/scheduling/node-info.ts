import { canonicalModel, marketedSizesOf, modelId, modelKey, modelTokens, usableGpuMemoryMiB } from './gpu-model';
import type { DraNodeGpus } from './dra-gpus';
import type { GpuSharing, MigLayout } from './gpu-node-facts';
import { migProfileMemoryMiB, readGpuNodeFacts } from './gpu-node-facts';
import { GPU_NODE_LIMITS } from './gpu-node-limits';
import { GPU_MILLI, GPU_RESOURCE, MIG_RESOURCE_PREFIX, NODE_ANNOTATION, NODE_LABEL } from './keys';
import { metadataOf, isRecord, stringField, stringMap } from './kube-json';
import { localityKeysOf } from './network-topology';
import type { NodeHealth } from './node-health';
import { HEALTHY, readNodeHealth } from './node-health';
import type { PodInfo } from './pod-info';
import { parseBytes, parseCount, parseCpuMilli } from './quantity';
import type { ResourceDemand } from './resources';

/** Plain description of a node, for callers that do not start from Kubernetes JSON (the trace simulator). */
export interface NodeSpec {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly zone?: string;
  /** Allocatable CPU in millicores; undefined = not modelled (never limits placement). */
  readonly cpuMilli?: number;
  readonly memoryBytes?: number;
  readonly maxPods?: number;
  readonly gpuCount: number;
  readonly gpuModel?: string;
  readonly gpuMemoryMiB?: number;
  /** GPU utilization percent 0..100; undefined = unknown. */
  readonly gpuUtilization?: number;
  /** Time-slicing or MPS: gpuCount is then the physical GPUs, each advertised as replicas. */
  readonly gpuSharing?: GpuSharing;
  readonly mig?: MigLayout;
  /** GPUs held by ResourceClaims (DRA), taken from the first devices before any pod binds. */
  readonly claimedGpus?: number;
  /** Why the node's GPU data cannot be trusted (the problems, without the InvalidNodeData phrase); GPU pods are rejected here. */
  readonly invalid?: string;
  /** What its health signals say (node-health.ts); healthy when absent. */
  readonly health?: NodeHealth;
}

/** A node's GPUs in its ResourceSlices, by node name (see draGpusByNode). */
export type DraGpusLookup = (nodeName: string) => DraNodeGpus | undefined;

/** A pod's GPU demand in this node's device terms: `count` devices with `milli` of each. */
export interface DeviceDemand {
  readonly count: number;
  readonly milli: number;
}

const EMPTY_TOKENS: readonly string[] = Object.freeze([]);

/**
 * One node of the cluster model. Static facts are parsed once when the
 * snapshot is built; the GPU aggregates (free whole GPUs, free milli, largest
 * free share) are kept up to date on every add/remove so that filters and
 * scores read fields instead of looping over devices.
 */
export class NodeInfo {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly zone: string | undefined;
  /** Per locality level, the node's key there (see localityKeysOf): read by NetworkLocality in its per-node loop. */
  readonly localityKeys: readonly (string | undefined)[];
  /** The model label as written, for messages. */
  readonly gpuModel: string | undefined;
  /** One name per model whoever labelled the node (`A100` for `a100`, `NVIDIA-A100-SXM4-40GB`); '' without a model. */
  readonly gpuModelName: string;
  readonly gpuModelTokens: readonly string[];
  /** Canonical model key (see gpu-model.ts); '' when the node has no model label. */
  readonly gpuModelKey: string;
  /** modelId(gpuModelKey): 0 without a model label. */
  readonly gpuModelId: number;
  /** Memory per device as the node reports it (EC2's or NVML's MiB). */
  readonly gpuMemoryMiB: number | undefined;
  /** What a pod may ask of one device: the marketed size the report stands for (see usableGpuMemoryMiB), at least the report. */
  readonly gpuUsableMemoryMiB: number | undefined;
  readonly gpuUtilization: number | undefined;
  readonly allocatableCpuMilli: number;
  readonly allocatableMemoryBytes: number;
  readonly allocatablePods: number;
  readonly gpuSharing: GpuSharing | undefined;
  /** What one unit of the shared resource is worth on a device (1000 when not shared). */
  readonly replicaMilli: number;
  readonly mig: MigLayout | undefined;
  /** MIG `mixed`: free devices per MIG resource (nvidia.com/mig-<profile>). */
  readonly migFree: Map<string, number>;
  readonly invalid: string | undefined;
  /** GPUs held by ResourceClaims: devices no pod of ours accounts for, so no unbind frees them. */
  readonly claimedGpus: number;
  /** Failing, degraded or withholding GPUs, or HEALTHY (node-health.ts); read by the GpuHealth plugin. */
  readonly health: NodeHealth;

  /** Free share of each GPU device, 0..1000. */
  readonly devices: Int32Array;
  requestedCpuMilli = 0;
  requestedMemoryBytes = 0;
  /**
   * Bumped by every bind and unbind (the only changes to the requests and
   * the devices): whatever a plugin derives from them stays valid while this
   * is unchanged, which is one read where comparing a copy of the devices
   * was a few cache misses per node.
   */
  stateVersion = 0;
  freeWholeGpus: number;
  freeGpuMilli: number;
  maxDeviceFreeMilli: number;
  readonly pods: PodInfo[] = [];
  /** Per pod uid, the devices it holds (parallel to pods). */
  private readonly assignments = new Map<string, readonly number[]>();

  constructor(spec: NodeSpec) {
    this.name = spec.name;
    this.labels = spec.labels ?? {};
    this.annotations = spec.annotations ?? {};
    this.zone = spec.zone ?? this.labels[NODE_LABEL.zone];
    this.localityKeys = localityKeysOf(spec.name, this.labels, this.zone);
    this.gpuModel = spec.gpuModel;
    this.gpuModelTokens = spec.gpuModel === undefined ? EMPTY_TOKENS : modelTokens(spec.gpuModel);
    this.gpuModelKey = spec.gpuModel === undefined ? '' : modelKey(spec.gpuModel);
    this.gpuModelId = modelId(this.gpuModelKey);
    this.gpuModelName = spec.gpuModel === undefined ? '' : canonicalModel(spec.gpuModel);
    this.gpuSharing = spec.gpuSharing;
    this.replicaMilli = spec.gpuSharing === undefined ? GPU_MILLI : Math.max(1, Math.floor(GPU_MILLI / spec.gpuSharing.replicas));
    this.mig = spec.mig;
    this.migFree = new Map(spec.mig?.strategy === 'mixed' ? spec.mig.types.map((t) => [t.resource, t.count]) : []);
    this.invalid = spec.invalid;
    this.health = spec.health ?? HEALTHY;
    this.gpuMemoryMiB = spec.gpuMemoryMiB;
    this.gpuUsableMemoryMiB = spec.gpuMemoryMiB === undefined ? undefined : usableGpuMemoryMiB(spec.gpuMemoryMiB, this.deviceSizesGiB());
    this.gpuUtilization = spec.gpuUtilization;
    this.allocatableCpuMilli = spec.cpuMilli ?? Number.POSITIVE_INFINITY;
    this.allocatableMemoryBytes = spec.memoryBytes ?? Number.POSITIVE_INFINITY;
    this.allocatablePods = spec.maxPods ?? Number.POSITIVE_INFINITY;
    // Bounded: a count nobody can have must not become a huge allocation.
    const count = spec.invalid === undefined && spec.gpuCount <= GPU_NODE_LIMITS.devices ? Math.max(0, Math.floor(spec.gpuCount)) : 0;
    this.devices = new Int32Array(count).fill(GPU_MILLI);
    this.claimedGpus = Math.min(count, Math.max(0, Math.floor(spec.claimedGpus ?? 0)));
    this.devices.fill(0, 0, this.claimedGpus);
    this.freeWholeGpus = count - this.claimedGpus;
    this.freeGpuMilli = this.freeWholeGpus * GPU_MILLI;
    this.maxDeviceFreeMilli = this.freeWholeGpus > 0 ? GPU_MILLI : 0;
  }

  /** Marketed sizes a device may be: the MIG `single` slice's profile, else the model's (all known sizes without a known model). */
  private deviceSizesGiB(): readonly number[] {
    const profile = this.mig?.strategy === 'single' ? this.mig.profile : undefined;
    const sliceMiB = profile === undefined ? undefined : migProfileMemoryMiB(profile);
    if (sliceMiB !== undefined) return [sliceMiB / 1024];
    return marketedSizesOf(this.gpuModelName);
  }

  get gpuCount(): number {
    return this.devices.length;
  }

  /**
   * A pod's GPU demand on this node's devices. On a time-sliced or MPS node a
   * unit of the shared resource is one replica, a share of one physical GPU;
   * a MIG (mixed) request uses no whole-GPU devices (see migFree).
   */
  gpuDemandOf(demand: ResourceDemand): DeviceDemand {
    return { count: this.deviceCountOf(demand), milli: this.deviceMilliOf(demand) };
  }

  /** gpuDemandOf(demand).count without the allocation, for per-node hot loops. */
  deviceCountOf(demand: ResourceDemand): number {
    const resource = demand.gpuResource;
    return resource !== undefined && resource.startsWith(MIG_RESOURCE_PREFIX) ? 0 : demand.gpuCount;
  }

  /** gpuDemandOf(demand).milli without the allocation. */
  deviceMilliOf(demand: ResourceDemand): number {
    const sharing = this.gpuSharing;
    if (sharing !== undefined && (demand.gpuResource ?? GPU_RESOURCE) === sharing.resource && demand.gpuMilli >= GPU_MILLI) return this.replicaMilli;
    return demand.gpuMilli;
  }

  /** Number of devices with at least `milli` free. */
  devicesWithFree(milli: number): number {
    if (milli >= GPU_MILLI) return this.freeWholeGpus;
    let n = 0;
    for (const free of this.devices) if (free >= milli) n++;
    return n;
  }

  /** Whether `count` devices with `milli` free each are available. */
  fitsGpus(count: number, milli: number): boolean {
    if (count <= 0) return true;
    if (milli >= GPU_MILLI) return this.freeWholeGpus >= count;
    if (count === 1) return this.maxDeviceFreeMilli >= milli;
    return this.devicesWithFree(milli) >= count;
  }

  /**
   * Binds a pod: consumes its CPU, memory and GPU shares. `devices` picks the
   * GPUs (a simulator policy may choose); by default whole GPUs take the
   * first free devices and a fractional share takes the best-fitting device.
   * Never throws: a pod that claims more than is free (stale or overcommitted
   * data) consumes what there is.
   */
  addPod(pod: PodInfo, devices?: readonly number[]): readonly number[] {
    const { demand } = pod;
    const want = this.gpuDemandOf(demand);
    const chosen = devices ?? this.chooseDevices(want.count, want.milli);
    for (const index of chosen) {
      const free = this.devices[index];
      if (free === undefined) continue;
      this.devices[index] = Math.max(0, free - Math.min(want.milli, GPU_MILLI));
    }
    this.takeMig(demand, -1);
    this.requestedCpuMilli += demand.cpuMilli;
    this.requestedMemoryBytes += demand.memoryBytes;
    this.pods.push(pod);
    this.assignments.set(pod.uid, chosen);
    this.refreshGpuAggregates();
    this.stateVersion++;
    return chosen;
  }

  /** Unbinds a pod by uid, returning its shares; false when the pod is not here. */
  removePod(uid: string): boolean {
    const index = this.pods.findIndex((p) => p.uid === uid);
    const pod = this.pods[index];
    if (pod === undefined) return false;
    this.pods.splice(index, 1);
    const milli = Math.min(this.gpuDemandOf(pod.demand).milli, GPU_MILLI);
    for (const device of this.assignments.get(uid) ?? []) {
      const free = this.devices[device];
      if (free !== undefined) this.devices[device] = Math.min(GPU_MILLI, free + milli);
    }
    this.takeMig(pod.demand, +1);
    this.assignments.delete(uid);
    this.requestedCpuMilli -= pod.demand.cpuMilli;
    this.requestedMemoryBytes -= pod.demand.memoryBytes;
    this.refreshGpuAggregates();
    this.stateVersion++;
    return true;
  }

  /** Devices held by a bound pod. */
  devicesOf(uid: string): readonly number[] | undefined {
    return this.assignments.get(uid);
  }

  /** An independent copy (same static facts, same bound pods), for what-if evaluation such as preemption. */
  clone(): NodeInfo {
    const copy = new NodeInfo({
      name: this.name,
      labels: this.labels,
      annotations: this.annotations,
      ...(this.zone === undefined ? {} : { zone: this.zone }),
      cpuMilli: this.allocatableCpuMilli,
      memoryBytes: this.allocatableMemoryBytes,
      maxPods: this.allocatablePods,
      gpuCount: this.gpuCount,
      ...(this.gpuModel === undefined ? {} : { gpuModel: this.gpuModel }),
      ...(this.gpuMemoryMiB === undefined ? {} : { gpuMemoryMiB: this.gpuMemoryMiB }),
      ...(this.gpuUtilization === undefined ? {} : { gpuUtilization: this.gpuUtilization }),
      ...(this.gpuSharing === undefined ? {} : { gpuSharing: this.gpuSharing }),
      ...(this.mig === undefined ? {} : { mig: this.mig }),
      ...(this.claimedGpus === 0 ? {} : { claimedGpus: this.claimedGpus }),
      ...(this.invalid === undefined ? {} : { invalid: this.invalid }),
      ...(this.health === HEALTHY ? {} : { health: this.health }),
    });
    for (const pod of this.pods) copy.addPod(pod, this.assignments.get(pod.uid));
    return copy;
  }

  /** MIG (mixed) devices a pod holds: `sign` -1 takes them, +1 gives them back; never below 0 or above what the node has. */
  private takeMig(demand: ResourceDemand, sign: 1 | -1): void {
    const resource = demand.gpuResource;
    if (resource === undefined || !resource.startsWith(MIG_RESOURCE_PREFIX)) return;
    const free = this.migFree.get(resource);
    if (free === undefined) return;
    const total = this.mig?.strategy === 'mixed' ? (this.mig.types.find((t) => t.resource === resource)?.count ?? 0) : 0;
    this.migFree.set(resource, Math.min(total, Math.max(0, free + sign * demand.gpuCount)));
  }

  private chooseDevices(count: number, milli: number): readonly number[] {
    if (count <= 0) return [];
    const chosen: number[] = [];
    if (milli >= GPU_MILLI || count > 1) {
      const need = Math.min(milli, GPU_MILLI);
      for (let i = 0; i < this.devices.length && chosen.length < count; i++) {
        if ((this.devices[i] ?? 0) >= need) chosen.push(i);
      }
      return chosen;
    }
    let best = -1;
    let bestFree = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.devices.length; i++) {
      const free = this.devices[i] ?? 0;
      if (free >= milli && free < bestFree) {
        best = i;
        bestFree = free;
      }
    }
    return best >= 0 ? [best] : [];
  }

  private refreshGpuAggregates(): void {
    let whole = 0;
    let total = 0;
    let max = 0;
    for (const free of this.devices) {
      if (free >= GPU_MILLI) whole++;
      total += free;
      if (free > max) max = free;
    }
    this.freeWholeGpus = whole;
    this.freeGpuMilli = total;
    this.maxDeviceFreeMilli = max;
  }
}

/**
 * A NodeInfo from Kubernetes Node JSON. GPU facts come from our labels, else
 * Karpenter's, else GPU Feature Discovery's, and from what the device plugin
 * allocates (see readGpuNodeFacts), or, without the device plugin, from
 * the node's ResourceSlices (`draGpusOf`, see dra-gpus.ts). Unparseable
 * labels count as unknown; they never throw.
 */
export function nodeInfoFromKubernetes(node: unknown, draGpusOf?: DraGpusLookup): NodeInfo | undefined {
  const metadata = metadataOf(node);
  const name = stringField(metadata.name);
  if (name === undefined || name === '') return undefined;
  const labels = stringMap(metadata.labels);
  const annotations = stringMap(metadata.annotations);
  const status = isRecord(node) && isRecord(node.status) ? node.status : undefined;
  const allocatable = stringMap(status?.allocatable ?? status?.capacity);
  const readOr = (text: string | undefined, parse: (t: string) => number | undefined): number | undefined =>
    text === undefined ? undefined : parse(text);
  const gpu = readGpuNodeFacts(labels, allocatable, draGpusOf?.(name));
  const utilization = parseUtilization(annotations[NODE_ANNOTATION.gpuUtilization]);
  const cpu = readOr(allocatable.cpu, parseCpuMilli);
  const bytes = readOr(allocatable.memory, parseBytes);
  const pods = readOr(allocatable.pods, parseCount);
  const health = readNodeHealth({
    labels,
    conditions: status?.conditions,
    unallocatableGpus: gpu.unallocatable,
    draWithheld: gpu.draWithheld,
    draWarnings: gpu.draWarnings,
  });
  return new NodeInfo({
    name,
    labels,
    annotations,
    gpuCount: gpu.devices,
    ...(cpu === undefined ? {} : { cpuMilli: cpu }),
    ...(bytes === undefined ? {} : { memoryBytes: bytes }),
    ...(pods === undefined ? {} : { maxPods: pods }),
    ...(gpu.model === undefined ? {} : { gpuModel: gpu.model }),
    ...(gpu.memoryMiB === undefined ? {} : { gpuMemoryMiB: gpu.memoryMiB }),
    ...(utilization === undefined ? {} : { gpuUtilization: utilization }),
    ...(gpu.sharing === undefined ? {} : { gpuSharing: gpu.sharing }),
    ...(gpu.mig === undefined ? {} : { mig: gpu.mig }),
    ...(gpu.claimed === 0 ? {} : { claimedGpus: gpu.claimed }),
    ...(gpu.invalid === undefined ? {} : { invalid: gpu.invalid }),
    ...(health === HEALTHY ? {} : { health }),
  });
}

/** "37", "37.5" or "37%" within 0..100; anything else is unknown. */
export function parseUtilization(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  return value >= 0 && value <= 100 ? value : undefined;
}
