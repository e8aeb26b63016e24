import { toExtenderScores } from '../../lambdas/extender/extender-scores';
import { chooseDevices } from '../../lambdas/scheduling/device-choice';
import { nodeResourcesFit } from '../../lambdas/scheduling/plugins/node-resources-fit';
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
 * How a node is chosen from the scores. `continuous`: every feasible node is
 * scored and the highest 0..100 score wins (the paper's simulator).
 * `kube-scheduler`: what the deployed second scheduler does with the
 * extender — see pickLikeKubeScheduler.
 */
export type Selection = 'continuous' | 'kube-scheduler';

/** kube-scheduler's minFeasibleNodesToFind and minFeasibleNodesPercentageToFind (pkg/scheduler/schedule_one.go). */
const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * kube-scheduler's numFeasibleNodesToFind with percentageOfNodesToScore
 * unset (0: adaptive), as the deployed configuration leaves it: 50 % minus
 * one point per 125 nodes, at least 5 % and at least 100 nodes.
 */
export function numFeasibleNodesToFind(allNodes: number, percentageOfNodesToScore = 0): number {
  if (allNodes < MIN_FEASIBLE_NODES_TO_FIND) return allNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage === 0) percentage = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.trunc(allNodes / 125));
  const found = Math.trunc((allNodes * percentage) / 100);
  return found < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : found;
}

/** Options of the kube-scheduler path. */
export interface KubeSchedulerPath {
  /** The extender's weight in the scheduler configuration (the deployed default). */
  readonly extenderWeight: number;
  /** percentageOfNodesToScore; 0 = kube-scheduler's adaptive default. */
  readonly percentageOfNodesToScore?: number;
  /**
   * The extender leaves the top level to one node (toExtenderScores with
   * names), as deployed; false replays kube-scheduler's random pick among
   * the nodes at the top (the ablation).
   * @default true
   */
  readonly stableTopLevel?: boolean;
}

/**
 * Replays an arrival sequence through one library Profile: filter, score,
 * pick the best node, let the dominant scorer pick devices, bind. No departures.
 * With `kubeScheduler` set, nodes are found and chosen as the deployed
 * second scheduler does (pickLikeKubeScheduler); tieBreak is then always random.
 */
export function runTrace(
  nodes: readonly TraceNode[],
  arrivals: readonly TracePod[],
  profile: Profile,
  rng: Rng,
  maxPercent: number,
  tieBreak: TieBreak = 'order',
  kubeScheduler?: KubeSchedulerPath,
): TraceRunResult {
  const infos = nodes.map(nodeFromTrace);
  shuffleInPlace(infos, rng);
  const snapshot = new Snapshot(infos);
  const capacity = infos.reduce((sum, n) => sum + n.gpuCount * 1000, 0);
  const checkpoints = new AllocationCheckpoints(capacity, maxPercent);
  let allocated = 0;
  let placed = 0;
  let unschedulable = 0;

  const toFind = kubeScheduler === undefined ? infos.length : numFeasibleNodesToFind(infos.length, kubeScheduler.percentageOfNodesToScore);
  let nextStartNodeIndex = 0;

  for (const trace of arrivals) {
    const pod = podFromTrace(trace);
    const state = profile.startCycle(snapshot, pod);
    let node: NodeInfo | undefined;
    if (kubeScheduler === undefined) {
      const feasible: NodeInfo[] = [];
      for (const candidate of infos) if (quickFit(pod, candidate) && profile.filterNode(state, candidate).ok) feasible.push(candidate);
      node = feasible.length === 0 ? undefined : pickBest(feasible, profile.score(state, feasible), tieBreak === 'random' ? rng : undefined);
    } else {
      // kube-scheduler's findNodesThatPassFilters: in-tree filters from a
      // rotating start until `toFind` nodes pass; then the extender's filter.
      const inTree: NodeInfo[] = [];
      let processed = 0;
      for (; processed < infos.length && inTree.length < toFind; processed++) {
        const candidate = infos[(nextStartNodeIndex + processed) % infos.length] as NodeInfo;
        if (quickFit(pod, candidate) && nodeResourcesFit.filter(state, pod, candidate).ok) inTree.push(candidate);
      }
      nextStartNodeIndex = (nextStartNodeIndex + processed) % infos.length;
      const feasible = inTree.filter((candidate) => profile.filterNode(state, candidate).ok);
      node = feasible.length === 0 ? undefined : pickBest(feasible, kubeSchedulerTotals(profile.score(state, feasible), feasible, kubeScheduler), rng);
    }
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

/**
 * What kube-scheduler adds up for the extender's nodes: the extender's
 * integer 0..10 level (toExtenderScores, as /prioritize answers) × weight ×
 * 10. The in-tree scores the deployed profile keeps (node affinity,
 * inter-pod affinity, topology spread, taints) are equal on every trace node,
 * so they add nothing that varies.
 */
function kubeSchedulerTotals(scores: Float64Array, nodes: readonly NodeInfo[], path: KubeSchedulerPath): Float64Array {
  const levels = path.stableTopLevel === false ? toExtenderScores(scores) : toExtenderScores(scores, (i) => (nodes[i] as NodeInfo).name);
  return Float64Array.from(levels, (level) => level * path.extenderWeight * 10);
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
