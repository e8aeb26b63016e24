import { GPU_MILLI, MIG_RESOURCE_PREFIX } from './keys';
import { ANYWHERE, LOCALITY_LEVELS, SAME_NODE } from './network-topology';
import type { NodeInfo } from './node-info';
import type { ResourceDemand } from './resources';

/** Where a job's placed pods are: how many sit under each locality key (see localityKeysOf). */
export interface PeerPlacement {
  readonly total: number;
  readonly perKey: ReadonlyMap<string, number>;
}

/** The part of the cluster a job's remaining pods should go to: the nodes whose key at `level` is `key`. */
export interface JobBlock {
  readonly level: number;
  readonly key: string;
  /** A node of the block, whose keys above `level` are the block's ancestors. */
  readonly member: NodeInfo;
  /** Pods like this one the block can still take (each node counted up to the remaining ones). */
  readonly capacity: number;
}

/** How many more pods with `demand` fit on `node` by its free resources, at most `limit`. */
export function podsThatFit(node: NodeInfo, demand: ResourceDemand, limit: number): number {
  let fit = limit;
  if (demand.cpuMilli > 0) fit = Math.min(fit, Math.floor((node.allocatableCpuMilli - node.requestedCpuMilli) / demand.cpuMilli));
  if (demand.memoryBytes > 0) fit = Math.min(fit, Math.floor((node.allocatableMemoryBytes - node.requestedMemoryBytes) / demand.memoryBytes));
  fit = Math.min(fit, node.allocatablePods - node.pods.length);
  const resource = demand.gpuResource;
  if (resource !== undefined && resource.startsWith(MIG_RESOURCE_PREFIX)) {
    if (demand.gpuCount > 0) fit = Math.min(fit, Math.floor((node.migFree.get(resource) ?? 0) / demand.gpuCount));
    return Math.max(0, fit);
  }
  const count = node.deviceCountOf(demand);
  if (count > 0 && fit > 0) {
    const milli = node.deviceMilliOf(demand);
    if (milli >= GPU_MILLI) fit = Math.min(fit, Math.floor(node.freeWholeGpus / count));
    else if (count === 1) {
      let shares = 0;
      for (const free of node.devices) shares += Math.floor(free / milli);
      fit = Math.min(fit, shares);
    } else fit = Math.min(fit, Math.floor(node.devicesWithFree(milli) / count));
  }
  return Math.max(0, fit);
}

/**
 * The smallest block (deepest locality level) whose feasible nodes can still
 * take all `remaining` pods of a job, among the blocks that hold every pod
 * of it already placed; ties go to the block with the least room (best fit,
 * so bigger blocks stay whole for bigger jobs), then by key. Before the first
 * pod is placed a single node is not a candidate: choosing among nodes is
 * the packing plugins' job. Undefined when no block, not even the whole
 * cluster, can take them: the job does not fit now, and locality to the
 * placed pods alone decides.
 */
export function chooseJobBlock(nodes: readonly NodeInfo[], demand: ResourceDemand, remaining: number, peers: PeerPlacement | undefined): JobBlock | undefined {
  const placed = peers?.total ?? 0;
  const lowest = placed > 0 ? SAME_NODE : SAME_NODE + 1;
  const blocks = new Map<string, { level: number; member: NodeInfo; capacity: number }>();
  for (const node of nodes) {
    const fit = podsThatFit(node, demand, remaining);
    if (fit <= 0) continue;
    for (let level = lowest; level < LOCALITY_LEVELS; level++) {
      const key = node.localityKeys[level];
      if (key === undefined || (placed > 0 && peers?.perKey.get(key) !== placed)) continue;
      const block = blocks.get(key);
      if (block === undefined) blocks.set(key, { level, member: node, capacity: fit });
      else block.capacity += fit;
    }
  }
  let best: JobBlock | undefined;
  for (const [key, block] of blocks) {
    if (block.capacity < remaining) continue;
    if (best === undefined || block.level < best.level || (block.level === best.level && (block.capacity < best.capacity || (block.capacity === best.capacity && key < best.key)))) {
      best = { key, ...block };
    }
  }
  return best;
}

/** The level at which `node` meets `block`: its own level when inside, else the first shared ancestor above (ANYWHERE at worst). */
export function levelToBlock(node: NodeInfo, block: JobBlock): number {
  if (node.localityKeys[block.level] === block.key) return block.level;
  for (let level = block.level + 1; level < ANYWHERE; level++) {
    const key = node.localityKeys[level];
    if (key !== undefined && key === block.member.localityKeys[level]) return level;
  }
  return ANYWHERE;
}
