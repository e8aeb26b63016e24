// The Prometheus Operator's CRDs (monitoring.coreos.com/v1) at the release
// go-modules/prometheus-operator/go.mod pins: the PodMonitor the stack
// applies is checked against them in the local kube-apiserver
// (test/e2e/prometheus-scrape.test.ts). The module is only downloaded,
// never built.
import { join } from 'node:path';
import { ensureGoBuild, type GoBuildSpec } from './go-build';

const POD_MONITOR_CRD = 'monitoring.coreos.com_podmonitors.yaml';

export const PROMETHEUS_OPERATOR_CRDS: GoBuildSpec = {
  name: 'prometheus-operator',
  purpose: "the Prometheus Operator's CRDs (github.com/prometheus-operator/prometheus-operator)",
  moduleDir: join(import.meta.dirname, 'go-modules', 'prometheus-operator'),
  module: 'github.com/prometheus-operator/prometheus-operator',
  packages: [],
  copies: [{ from: `example/prometheus-operator-crd/${POD_MONITOR_CRD}`, to: `crds/${POD_MONITOR_CRD}` }],
};

/** The PodMonitor CRD's file, downloaded and copied into the cache first when needed. */
export async function podMonitorCrdFile(log: (message: string) => void = console.log): Promise<string> {
  const build = await ensureGoBuild(PROMETHEUS_OPERATOR_CRDS, log);
  return join(build.dir, 'crds', POD_MONITOR_CRD);
}
