// The outcome numbers after the demo, from the live cluster: GPUs
// allocatable, allocated, idle and stranded (per model), and the GPU pods
// still pending for the GPU scheduler with the oldest one's age. The same
// library measure (lambdas/scheduling/cluster-outcome.ts) a deployment reports.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { collectPages, paginate } from '../../lambdas/kube/paginate';
import { clusterOutcome, type ClusterOutcome, type GpuOutcome } from '../../lambdas/scheduling/cluster-outcome';
import { pendingGpuPods } from '../../lambdas/scheduling/pending-gpu-pods';
import { snapshotFromKubernetes } from '../../lambdas/scheduling/snapshot';

export interface OutcomeReport {
  readonly outcome: ClusterOutcome;
  readonly pendingGpuPods: number;
  /** Age of the oldest pending GPU pod, in seconds; undefined when none is pending. */
  readonly oldestPendingSeconds: number | undefined;
}

/** Pure: the report from node and pod lists (as the API returns them). */
export function outcomeReport(nodes: readonly unknown[], pods: readonly V1Pod[], schedulerName: string, nowMs: number): OutcomeReport {
  const pending = pendingGpuPods(pods, schedulerName, nowMs);
  return { outcome: clusterOutcome(snapshotFromKubernetes(nodes, pods)), pendingGpuPods: pending.count, oldestPendingSeconds: pending.oldestSeconds };
}

export async function readOutcomeReport(core: CoreV1Api, schedulerName: string, nowMs = Date.now()): Promise<OutcomeReport> {
  const nodes = await collectPages(paginate((page) => core.listNode({ limit: 500, ...page })));
  const pods = await collectPages(paginate((page) => core.listPodForAllNamespaces({ limit: 500, ...page })));
  return outcomeReport(nodes, pods, schedulerName, nowMs);
}

const percent = (part: number, whole: number): string => (whole === 0 ? '-' : `${Math.round((part / whole) * 100)} %`);

function row(name: string, o: GpuOutcome): string[] {
  return [name, String(o.nodes), String(o.allocatable), `${o.allocated} (${percent(o.allocated, o.allocatable)})`, String(o.idle), `${o.stranded} (${percent(o.stranded, o.allocatable)})`];
}

/** Table rows (header first): one per GPU model, then the total. */
export function outcomeTable(report: OutcomeReport): { header: string[]; rows: string[][] } {
  const { outcome } = report;
  return {
    header: ['GPU MODEL', 'NODES', 'GPUS', 'ALLOCATED', 'IDLE', 'STRANDED'],
    rows: [...Object.entries(outcome.byModel).map(([model, o]) => row(model, o)), row('all', outcome)],
  };
}

/** One line on the pending GPU pods. */
export function pendingLine(report: OutcomeReport, schedulerName: string): string {
  if (report.pendingGpuPods === 0) return `GPU pods pending for ${schedulerName}: none`;
  return `GPU pods pending for ${schedulerName}: ${report.pendingGpuPods}, the oldest for ${report.oldestPendingSeconds ?? '?'} s`;
}
