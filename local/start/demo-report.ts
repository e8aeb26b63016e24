// After the demo: the what-if report of the demo's cluster as it stands
// (simulate --report on the live nodes and pods), written where Ctrl-C's
// cleanup leaves it, so it can be opened once the pipeline is gone.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CoreV1Api } from '@kubernetes/client-node';
import { collectPages, paginate } from '../../lambdas/kube/paginate';
import { renderReportHtml } from '../../simulator/report/report-html';
import { buildWhatIfReport } from '../../simulator/report/report-model';
import { simulate } from '../../simulator/simulate';

/** Outside the temporary folders npm start removes; git ignores it. */
export const DEMO_REPORT_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.demo-out/what-if-report.html');

export interface DemoReport {
  readonly file: string;
  readonly nodes: number;
  readonly pending: number;
}

/** Lists the cluster's nodes and pods, simulates the gpu-scheduler's pending pods on it, and writes the report. */
export async function writeDemoReport(core: CoreV1Api, file = DEMO_REPORT_PATH): Promise<DemoReport> {
  const nodes = await collectPages(paginate((page) => core.listNode({ limit: 500, ...page })));
  const pods = await collectPages(paginate((page) => core.listPodForAllNamespaces({ limit: 500, ...page })));
  const result = simulate(nodes, pods);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, renderReportHtml(buildWhatIfReport(nodes, pods, result)));
  return { file, nodes: nodes.length, pending: result.placed.length + result.unschedulable.length };
}
