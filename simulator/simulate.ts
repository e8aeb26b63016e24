import { chooseDevices } from '../lambdas/scheduling/device-choice';
import type { ChoiceExplanation } from '../lambdas/scheduling/explain';
import { explainChoice } from '../lambdas/scheduling/explain';
import type { RejectedNode } from '../lambdas/scheduling/framework';
import { metadataOf, stringField } from '../lambdas/scheduling/kube-json';
import { podInfoFromKubernetes } from '../lambdas/scheduling/pod-info';
import { parsePodRequirements } from '../lambdas/scheduling/pod-requirements';
import type { Profile } from '../lambdas/scheduling/profile';
import { selectNode } from '../lambdas/scheduling/profile';
import { snapshotFromKubernetes } from '../lambdas/scheduling/snapshot';
import { isRecord } from '../lambdas/scheduling/kube-json';

export interface PlacedPod {
  readonly pod: string;
  readonly node: string;
  readonly score: number;
  /** GPU device indexes the pod got on the node. */
  readonly devices: readonly number[];
  /** With `explain`: each plugin's score on the chosen node and on the runner-up, and whether it was a tie. */
  readonly explanation?: ChoiceExplanation;
}

export interface SimulateOptions {
  /** Keep each placement's per-plugin scores and runner-up (--explain). */
  readonly explain?: boolean;
}

export interface NodeReason {
  readonly node: string;
  readonly code: string;
  readonly message: string;
}

export interface UnschedulablePod {
  readonly pod: string;
  /** kube-scheduler style: "0/3 nodes are available: 2 InsufficientGpus, 1 GpuModelMismatch." */
  readonly summary: string;
  readonly reasons: readonly NodeReason[];
}

export interface NodeUsage {
  readonly node: string;
  readonly gpus: number;
  readonly freeWholeGpus: number;
  readonly pods: number;
}

export interface SimulationResult {
  readonly placed: readonly PlacedPod[];
  readonly unschedulable: readonly UnschedulablePod[];
  /** Pods already bound in the input (spec.nodeName set), counted as existing load. */
  readonly alreadyBound: number;
  readonly nodes: readonly NodeUsage[];
}

function podKey(pod: unknown): string {
  const metadata = metadataOf(pod);
  return `${stringField(metadata.namespace) ?? 'default'}/${stringField(metadata.name) ?? ''}`;
}

function isPending(pod: unknown): boolean {
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const status = isRecord(pod) && isRecord(pod.status) ? pod.status : undefined;
  const nodeName = stringField(spec?.nodeName);
  const phase = stringField(status?.phase);
  return (nodeName === undefined || nodeName === '') && phase !== 'Succeeded' && phase !== 'Failed';
}

export function summarize(total: number, rejected: readonly RejectedNode[]): string {
  const counts = new Map<string, number>();
  for (const r of rejected) counts.set(r.status.code, (counts.get(r.status.code) ?? 0) + 1);
  const parts = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([code, n]) => `${n} ${code}`);
  return `0/${total} nodes are available${parts.length > 0 ? `: ${parts.join(', ')}` : ''}.`;
}

/**
 * What-if placement: bound pods in `pods` are existing load; every pending
 * pod is placed in input order with the library's selectNode (CPU, memory and
 * GPU fit plus the scoring plugins; ties go to the earliest node in the
 * input), and later pods see the earlier ones.
 */
export function simulate(nodes: readonly unknown[], pods: readonly unknown[], profile: Profile, options: SimulateOptions = {}): SimulationResult {
  const bound = pods.filter((p) => podInfoFromKubernetes(p) !== undefined);
  const snapshot = snapshotFromKubernetes(nodes, bound);
  const placed: PlacedPod[] = [];
  const unschedulable: UnschedulablePod[] = [];
  for (const raw of pods) {
    if (!isPending(raw)) continue;
    const pod = parsePodRequirements(raw);
    const { node, score, rejected, feasible } = selectNode(profile, snapshot, pod);
    if (node === undefined) {
      unschedulable.push({
        pod: podKey(raw),
        summary: summarize(snapshot.nodes.length, rejected),
        reasons: rejected.map((r) => ({ node: r.node.name, code: r.status.code, message: r.status.message })),
      });
      continue;
    }
    // Scored again before the bind, as the choice was made; only when asked (it doubles the scoring).
    const explanation = options.explain === true ? explainChoice(feasible, profile.explainScores(profile.startCycle(snapshot, pod), feasible)) : undefined;
    const devices = snapshot.bind(
      { uid: pod.uid, namespace: pod.namespace, name: pod.name, labels: pod.labels, nodeName: node.name, demand: pod.demand },
      chooseDevices(profile, profile.startCycle(snapshot, pod), node),
    );
    placed.push({ pod: podKey(raw), node: node.name, score: Math.round(score * 100) / 100, devices: [...devices], ...(explanation === undefined ? {} : { explanation }) });
  }
  return {
    placed,
    unschedulable,
    alreadyBound: bound.length,
    nodes: snapshot.nodes.map((n) => ({ node: n.name, gpus: n.gpuCount, freeWholeGpus: n.freeWholeGpus, pods: n.pods.length })),
  };
}
