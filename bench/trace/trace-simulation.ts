import { chooseDevices } from '../../lambdas/scheduling/device-choice';
import type { NodeInfo } from '../../lambdas/scheduling/node-info';
import { NodeInfo as NodeInfoClass } from '../../lambdas/scheduling/node-info';
import type { PodRequirements } from '../../lambdas/scheduling/pod-requirements';
import { createPodRequirements } from '../../lambdas/scheduling/pod-requirements';
import type { Profile } from '../../lambdas/scheduling/profile';
import { Snapshot } from '../../lambdas/scheduling/snapshot';
import type { Rng } from './seeded-rng';
import { shuffleInPlace } from './seeded-rng';
import type { TraceNode, TracePod } from './trace-csv';
import { AllocationCheckpoints, podGpuMilli } from './trace-workload';

const MIB = 1024 * 1024;

export function nodeFromTrace(node: TraceNode): NodeInfo {
  return new NodeInfoClass({
    name: node.name,
    cpuMilli: node.cpuMilli,
    memoryBytes: node.memoryMiB * MIB,
    gpuCount: node.gpuCount,
    ...(node.model === '' ? {} : { gpuModel: node.model }),
  });
}

export function podFromTrace(pod: TracePod): PodRequirements {
  return createPodRequirements({
    name: pod.name,
    cpuMilli: pod.cpuMilli,
    memoryBytes: pod.memoryMiB * MIB,
    gpuCount: pod.numGpu,
    gpuMilli: pod.numGpu > 0 ? pod.gpuMilli : 1000,
    ...(pod.gpuSpec.length > 0 ? { gpuModels: pod.gpuSpec } : {}),
  });
}

export interface TraceRunResult {
  /** Allocation percent at each arrived-percent checkpoint (sparse: index = percent). */
  readonly checkpoints: ReadonlyMap<number, number>;
  readonly placed: number;
  readonly unschedulable: number;
}

/**
 * How equal scores are broken. `order`: the nodes are shuffled once per run
 * (seeded) and the earliest best node wins — the library's selectNode rule,
 * and the behaviour that reproduces the paper's published numbers (its
 * simulator prefixes node names with a seeded random permutation). `random`:
 * a fresh uniform pick among the best for every pod (kube-scheduler's
 * reservoir sampling in selectHost).
 */
export type TieBreak = 'order' | 'random';

/**
 * Replays an arrival sequence through one library Profile: filter, score,
 * pick the best node, let the dominant scorer pick devices, bind. No departures.
 */
export function runTrace(
  nodes: readonly TraceNode[],
  arrivals: readonly TracePod[],
  profile: Profile,
  rng: Rng,
  maxPercent: number,
  tieBreak: TieBreak = 'order',
): TraceRunResult {
  const infos = nodes.map(nodeFromTrace);
  shuffleInPlace(infos, rng);
  const snapshot = new Snapshot(infos);
  const capacity = infos.reduce((sum, n) => sum + n.gpuCount * 1000, 0);
  const checkpoints = new AllocationCheckpoints(capacity, maxPercent);
  let allocated = 0;
  let placed = 0;
  let unschedulable = 0;

  for (const trace of arrivals) {
    const pod = podFromTrace(trace);
    const state = profile.startCycle(snapshot, pod);
    const feasible: NodeInfo[] = [];
    for (const node of infos) if (quickFit(pod, node) && profile.filterNode(state, node).ok) feasible.push(node);
    const node = feasible.length === 0 ? undefined : pickBest(feasible, profile.score(state, feasible), tieBreak === 'random' ? rng : undefined);
    if (node === undefined) {
      unschedulable++;
    } else {
      const devices = chooseDevices(profile, state, node);
      snapshot.bind({ uid: pod.uid, namespace: pod.namespace, name: pod.name, labels: pod.labels, nodeName: node.name, demand: pod.demand }, devices);
      allocated += podGpuMilli(trace);
      placed++;
    }
    checkpoints.record(podGpuMilli(trace), allocated);
  }
  return { checkpoints: checkpoints.finish(allocated), placed, unschedulable };
}

/**
 * A necessary condition for the library filters to pass, checked first so the
 * replay does not build a rejection message for the thousands of full nodes
 * late in a run. It never admits a node the library would reject: the
 * library's filters still decide.
 */
function quickFit(pod: PodRequirements, node: NodeInfo): boolean {
  const { cpuMilli, gpuCount, gpuMilli } = pod.demand;
  if (node.requestedCpuMilli + cpuMilli > node.allocatableCpuMilli) return false;
  return gpuCount === 0 || node.fitsGpus(gpuCount, gpuMilli);
}

/** Highest score; ties go to the earliest node, or, given an rng, to a uniform pick (reservoir sampling). */
function pickBest(nodes: readonly NodeInfo[], scores: Float64Array, rng: Rng | undefined): NodeInfo | undefined {
  let best = 0;
  let ties = 1;
  for (let i = 1; i < nodes.length; i++) {
    const s = scores[i] ?? 0;
    const top = scores[best] ?? 0;
    if (s > top) {
      best = i;
      ties = 1;
    } else if (s === top && rng !== undefined && rng.int(++ties) === 0) {
      best = i;
    }
  }
  return nodes[best];
}
