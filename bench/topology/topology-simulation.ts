import { chooseDevices } from '../../lambdas/scheduling/device-choice';
import { podsThatFit } from '../../lambdas/scheduling/job-block';
import { typicalShapes } from '../../lambdas/scheduling/fragmentation/workload-shapes';
import type { WorkloadShape } from '../../lambdas/scheduling/fragmentation/workload-shapes';
import type { PodRequirements } from '../../lambdas/scheduling/pod-requirements';
import { createPodRequirements } from '../../lambdas/scheduling/pod-requirements';
import type { Profile } from '../../lambdas/scheduling/profile';
import { selectNode } from '../../lambdas/scheduling/profile';
import type { ResourceDemand } from '../../lambdas/scheduling/resources';
import { Snapshot } from '../../lambdas/scheduling/snapshot';
import type { ClusterNode } from './topology-cluster';
import { bottomOf, GPUS_PER_NODE, toNodeInfo } from './topology-cluster';
import type { BenchJob } from './topology-workload';

const CPU_PER_GPU_MILLI = 12_000;
const MEMORY_PER_GPU_BYTES = 100 * 2 ** 30;

/** What happened to one job. */
export interface JobOutcome {
  readonly job: BenchJob;
  /** Minutes; undefined when it never started. */
  readonly start: number | undefined;
  /** The node of each pod. */
  readonly nodes: readonly string[];
  /** Whether some bottom network node could take the whole job when it started. */
  readonly fitsOneBlock: boolean;
}

export interface SimulationRun {
  readonly outcomes: readonly JobOutcome[];
  /** Time-weighted share of GPU capacity allocated between 10 % and 100 % of the arrival window, percent. */
  readonly allocation: number;
}

export function podOf(job: BenchJob, index: number): PodRequirements {
  const share = (job.gpus * job.gpuMilli) / 1000;
  return createPodRequirements({
    name: `job-${job.id}-${index}`,
    namespace: 'bench',
    labels: { job: String(job.id) },
    cpuMilli: Math.ceil(share * CPU_PER_GPU_MILLI),
    memoryBytes: Math.ceil(share * MEMORY_PER_GPU_BYTES),
    gpuCount: job.gpus,
    gpuMilli: job.gpuMilli,
    peerSelector: [{ key: 'job', operator: 'In', values: [String(job.id)] }],
    ...(job.pods > 1 ? { groupSize: job.pods } : {}),
  });
}

/** The workload's typical shapes, as the trace benchmark feeds FGD. */
export function workloadShapes(jobs: readonly BenchJob[]): WorkloadShape[] {
  return typicalShapes(jobs.flatMap((job) => Array.from({ length: job.pods }, () => ({ cpuMilli: podOf(job, 0).demand.cpuMilli, gpuCount: job.gpus, gpuMilli: job.gpuMilli }))));
}

function demandKey(d: ResourceDemand): string {
  return `${d.cpuMilli}|${d.memoryBytes}|${d.gpuCount}|${d.gpuMilli}`;
}

/**
 * Replays the jobs in arrival order on a fresh cluster with one policy.
 * Admission is all-or-nothing per job (as a gang admitter such as Kueue
 * gives): every pending job, oldest first, is tried whenever something
 * arrives or ends; its pods are placed one at a time by the profile, and if
 * one finds no node the ones placed are taken back and the job waits.
 */
export function simulateTopology(cluster: readonly ClusterNode[], jobs: readonly BenchJob[], profile: Profile): SimulationRun {
  const nodes = cluster.map(toNodeInfo);
  const byName = new Map(cluster.map((n) => [n.name, n]));
  const snapshot = new Snapshot(nodes);
  const capacityMilli = nodes.length * GPUS_PER_NODE * 1000;
  const arrivals = [...jobs].sort((a, b) => a.arrival - b.arrival || a.id - b.id);
  const windowEnd = arrivals[arrivals.length - 1]?.arrival ?? 0;
  const windowStart = windowEnd * 0.1;
  const departures: { time: number; uids: string[] }[] = [];
  const pending: BenchJob[] = [];
  const outcomes = new Map<number, JobOutcome>();
  let allocatedMilli = 0;
  let allocatedIntegral = 0;
  let clock = 0;
  let next = 0;

  const advance = (to: number) => {
    const from = Math.max(clock, windowStart);
    const until = Math.min(to, windowEnd);
    if (until > from) allocatedIntegral += allocatedMilli * (until - from);
    clock = to;
  };

  const blockFits = (pod: PodRequirements, count: number): boolean => {
    const room = new Map<string, number>();
    for (const node of nodes) {
      const fit = podsThatFit(node, pod.demand, count);
      if (fit === 0) continue;
      const bottom = bottomOf(byName.get(node.name) as ClusterNode);
      const total = (room.get(bottom) ?? 0) + fit;
      if (total >= count) return true;
      room.set(bottom, total);
    }
    return false;
  };

  const tryStart = (job: BenchJob, roomCache: Map<string, number>): boolean => {
    const first = podOf(job, 0);
    const key = demandKey(first.demand);
    let room = roomCache.get(key);
    if (room === undefined) {
      room = 0;
      for (const node of nodes) room += podsThatFit(node, first.demand, job.pods);
      roomCache.set(key, room);
    }
    if (room < job.pods) return false;
    const fitsOneBlock = job.pods > 1 && blockFits(first, job.pods);
    const placed: { uid: string; node: string; milli: number }[] = [];
    for (let i = 0; i < job.pods; i++) {
      const pod = podOf(job, i);
      const choice = selectNode(profile, snapshot, pod);
      if (choice.node === undefined) break;
      snapshot.bind(
        { uid: pod.uid, namespace: pod.namespace, name: pod.name, labels: pod.labels, nodeName: choice.node.name, demand: pod.demand },
        chooseDevices(profile, profile.startCycle(snapshot, pod), choice.node),
      );
      placed.push({ uid: pod.uid, node: choice.node.name, milli: job.gpus * job.gpuMilli });
    }
    if (placed.length < job.pods) {
      for (const p of placed) snapshot.unbind(p.uid);
      return false;
    }
    for (const p of placed) allocatedMilli += p.milli;
    outcomes.set(job.id, { job, start: clock, nodes: placed.map((p) => p.node), fitsOneBlock });
    insertDeparture(departures, { time: clock + job.duration, uids: placed.map((p) => p.uid) });
    return true;
  };

  while (next < arrivals.length || (pending.length > 0 && departures.length > 0)) {
    const arrivalAt = arrivals[next]?.arrival ?? Number.POSITIVE_INFINITY;
    const departureAt = departures[0]?.time ?? Number.POSITIVE_INFINITY;
    advance(Math.min(arrivalAt, departureAt));
    while ((departures[0]?.time ?? Number.POSITIVE_INFINITY) <= clock) {
      const done = departures.shift();
      for (const uid of done?.uids ?? []) {
        const pod = snapshot.pods.find((p) => p.uid === uid);
        if (pod !== undefined) allocatedMilli -= pod.demand.gpuCount * pod.demand.gpuMilli;
        snapshot.unbind(uid);
      }
    }
    while ((arrivals[next]?.arrival ?? Number.POSITIVE_INFINITY) <= clock) pending.push(arrivals[next++] as BenchJob);
    // What each pod shape could take at most, kept until a job starts.
    let roomCache = new Map<string, number>();
    for (let i = 0; i < pending.length; ) {
      if (tryStart(pending[i] as BenchJob, roomCache)) {
        pending.splice(i, 1);
        roomCache = new Map();
      } else i++;
    }
  }
  for (const job of pending) outcomes.set(job.id, { job, start: undefined, nodes: [], fitsOneBlock: false });
  const span = windowEnd - windowStart;
  return { outcomes: jobs.map((j) => outcomes.get(j.id) as JobOutcome), allocation: span > 0 ? (100 * allocatedIntegral) / (span * capacityMilli) : 0 };
}

function insertDeparture(list: { time: number; uids: string[] }[], item: { time: number; uids: string[] }): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid]?.time ?? 0) <= item.time) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}
