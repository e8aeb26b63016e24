import type { CycleState, FilterPlugin, FilterRejection, FilterStatus } from '../framework';
import { PASS, reject, stateKey } from '../framework';
import { modelMatches, usableGpuMemoryMiB } from '../gpu-model';
import { migProfileMemoryMiB } from '../gpu-node-facts';
import { AUTO_MODE_LABEL, GFD_LABEL, GPU_MILLI, GPU_RESOURCE, KARPENTER_LABEL, MIG_RESOURCE_PREFIX, NODE_LABEL } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const GPU_FIT_NAME = 'GpuFit' as const;

/**
 * Per cycle: the verdict for each distinct node model and the rejections
 * already built. Thousands of nodes share a handful of models and free
 * counts, so the hot loop reuses one result object per distinct reason
 * instead of building a message per node.
 */
interface FitMemo {
  /** Indexed by NodeInfo.gpuModelId. */
  readonly byModel: (FilterStatus | undefined)[];
  /** Keyed by the node's usable MiB × 2^21 + reported MiB (both below 2^21 by GPU_NODE_LIMITS, gpu-node-limits.ts). */
  readonly byMemory: Map<number, FilterRejection>;
  readonly byFree: Map<number, FilterRejection>;
  noModelLabel: FilterRejection | undefined;
  noMemoryLabel: FilterRejection | undefined;
}

const MEMO = stateKey<FitMemo>(`${GPU_FIT_NAME}/memo`);

/**
 * Filter: the node has the GPU model the pod allows, enough memory per GPU,
 * and enough free GPUs (whole, or a device with a large enough free share).
 * Model and memory mismatches are unresolvable by preemption; a lack of free
 * GPUs is not, unless the node does not have that many GPUs at all. Pods that
 * ask for no GPU pass untouched.
 */
export const gpuFit: FilterPlugin = {
  name: GPU_FIT_NAME,

  preFilter(state: CycleState): void {
    state.write(MEMO, { byModel: [], byMemory: new Map(), byFree: new Map(), noModelLabel: undefined, noMemoryLabel: undefined });
  },

  filter(state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus {
    if (pod.demand.gpuCount <= 0) return PASS;
    if (node.invalid !== undefined) return reject('InvalidNodeData', node.invalid, true);
    const memo = state.read(MEMO) ?? { byModel: [], byMemory: new Map(), byFree: new Map(), noModelLabel: undefined, noMemoryLabel: undefined };

    if (pod.gpuModels !== undefined) {
      const status = modelStatus(memo, pod, pod.gpuModels, node);
      if (!status.ok) return status;
    }

    const resource = pod.demand.gpuResource ?? GPU_RESOURCE;
    if (resource.startsWith(MIG_RESOURCE_PREFIX)) return migStatus(pod, node, resource);
    const sharing = node.gpuSharing;
    if (sharing === undefined ? resource !== GPU_RESOURCE : resource !== sharing.resource) {
      return reject('GpuSharingMismatch', `pod asks for ${resource}, node advertises ${sharing?.resource ?? GPU_RESOURCE}`, true);
    }
    if (sharing !== undefined && pod.demand.gpuCount > 1 && pod.demand.gpuMilli >= GPU_MILLI) {
      // kube-scheduler counts replicas as if they were GPUs; the device plugin
      // may hand all of them out on one physical GPU, and never more compute.
      return reject(
        'GpuSharingMismatch',
        `GPUs are shared on this node (${sharing.strategy}, ${formatReplicas(sharing.replicas)} replicas per GPU, ${node.gpuCount} physical): ` +
          `${pod.demand.gpuCount} ${resource} would be ${pod.demand.gpuCount} replicas, not ${pod.demand.gpuCount} GPUs`,
        true,
      );
    }
    const gpuCount = node.deviceCountOf(pod.demand);
    const gpuMilli = node.deviceMilliOf(pod.demand);

    const wantMemory = pod.gpuMemoryMiB;
    if (wantMemory !== undefined && wantMemory > 0) {
      const hasMemory = node.gpuMemoryMiB;
      const usable = node.gpuUsableMemoryMiB;
      if (hasMemory === undefined || usable === undefined) {
        return (memo.noMemoryLabel ??= reject(
          'InsufficientGpuMemory',
          `pod wants ${wantMemory} MiB per GPU, node has no GPU memory label (${MEMORY_LABELS})`,
          true,
        ));
      }
      if (usable < wantMemory) {
        const key = usable * 2 ** 21 + hasMemory;
        let status = memo.byMemory.get(key);
        if (status === undefined) {
          status = reject('InsufficientGpuMemory', memoryShortfall(wantMemory, 'node', hasMemory, usable), true);
          memo.byMemory.set(key, status);
        }
        return status;
      }
    }

    if (node.fitsGpus(gpuCount, gpuMilli)) return PASS;
    const unresolvable = gpuCount > node.gpuCount;
    if (gpuMilli >= GPU_MILLI) {
      const free = node.freeWholeGpus;
      const key = free * 2 + (unresolvable ? 1 : 0);
      let status = memo.byFree.get(key);
      if (status === undefined) {
        status = reject('InsufficientGpus', `requested ${gpuCount}, free ${free}`, unresolvable);
        memo.byFree.set(key, status);
      }
      return status;
    }
    return reject(
      'InsufficientGpus',
      gpuCount === 1
        ? `requested ${gpuMilli}/1000 of one GPU, largest free share ${node.maxDeviceFreeMilli}/1000`
        : `requested ${gpuCount} with ${gpuMilli}/1000 free each, found ${node.devicesWithFree(gpuMilli)}`,
      unresolvable,
    );
  },
};

function modelStatus(memo: FitMemo, pod: PodRequirements, wanted: readonly string[], node: NodeInfo): FilterStatus {
  if (node.gpuModel === undefined) {
    return (memo.noModelLabel ??= reject('GpuModelMismatch', `pod wants ${wanted.join('|')}, node has no GPU model label (${MODEL_LABELS})`, true));
  }
  let status = memo.byModel[node.gpuModelId];
  if (status === undefined) {
    const nodeTokens = node.gpuModelTokens;
    status = pod.gpuModelTokens.some((tokens) => modelMatches(tokens, nodeTokens))
      ? PASS
      : reject('GpuModelMismatch', `pod wants ${wanted.join('|')}, node has ${node.gpuModel}`, true);
    memo.byModel[node.gpuModelId] = status;
  }
  return status;
}

const MODEL_LABELS = `${NODE_LABEL.gpuModel}, ${KARPENTER_LABEL.gpuName}, ${AUTO_MODE_LABEL.gpuName} or ${GFD_LABEL.product}`;
const MEMORY_LABELS = `${NODE_LABEL.gpuMemory}, ${KARPENTER_LABEL.gpuMemory}, ${AUTO_MODE_LABEL.gpuMemory} or ${GFD_LABEL.memory}`;

/**
 * Both numbers when they differ: what the node reports and the marketed size
 * it was read as (`node has 81559 MiB, read as its marketed 80 GiB (81920 MiB)`), so a user
 * sees why `96Gi` does not fit where `80Gi` does.
 */
function memoryShortfall(wantMiB: number, holder: string, reportedMiB: number, usableMiB: number): string {
  const read = usableMiB === reportedMiB ? '' : `, read as its marketed ${formatGiB(usableMiB)} GiB (${usableMiB} MiB)`;
  return `pod wants ${wantMiB} MiB per GPU, ${holder} has ${reportedMiB} MiB${read}`;
}

function formatGiB(mib: number): string {
  const gib = mib / 1024;
  return Number.isInteger(gib) ? String(gib) : gib.toFixed(1);
}

function formatReplicas(replicas: number): string {
  return Number.isInteger(replicas) ? String(replicas) : replicas.toFixed(2);
}

/** MIG `mixed`: the node has free devices of the requested profile, each with the memory the pod asks for. */
function migStatus(pod: PodRequirements, node: NodeInfo, resource: string): FilterStatus {
  const type = node.mig?.strategy === 'mixed' ? node.mig.types.find((t) => t.resource === resource) : undefined;
  if (type === undefined) return reject('GpuSharingMismatch', `pod asks for ${resource}, node has no such MIG devices`, true);
  const wantMemory = pod.gpuMemoryMiB;
  if (wantMemory !== undefined) {
    const profileMiB = migProfileMemoryMiB(type.profile);
    const usable = usableGpuMemoryMiB(type.memoryMiB, profileMiB === undefined ? [] : [profileMiB / 1024]);
    if (wantMemory > usable) return reject('InsufficientGpuMemory', memoryShortfall(wantMemory, resource, type.memoryMiB, usable), true);
  }
  const free = node.migFree.get(resource) ?? 0;
  if (free >= pod.demand.gpuCount) return PASS;
  return reject('InsufficientGpus', `requested ${pod.demand.gpuCount} ${resource}, free ${free}`, pod.demand.gpuCount > type.count);
}
