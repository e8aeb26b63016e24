// The Prometheus Operator's module (github.com/prometheus-operator/prometheus-operator)
// from the Go module proxy: its CRDs, which the PodMonitor the stack applies
// is checked against in the local kube-apiserver (test/e2e/prometheus-scrape.test.ts).
// Only downloaded, never built; the module cache keeps it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireGo, runGo } from './go';

export const PROMETHEUS_OPERATOR_MODULE = 'github.com/prometheus-operator/prometheus-operator';
/** The release whose CRDs (monitoring.coreos.com/v1) the manifests are checked against. */
export const PROMETHEUS_OPERATOR_VERSION = 'v0.85.0';

/** Downloads the module (a no-op once it is in the module cache) and returns the PodMonitor CRD's file. */
export async function podMonitorCrdFile(): Promise<string> {
  requireGo(PROMETHEUS_OPERATOR_MODULE);
  const workDir = mkdtempSync(join(tmpdir(), 'prometheus-operator-'));
  const lines: string[] = [];
  try {
    await runGo(['mod', 'download', '-json', `${PROMETHEUS_OPERATOR_MODULE}@${PROMETHEUS_OPERATOR_VERSION}`], workDir, (line) => lines.push(line));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const dir = /"Dir":\s*"([^"]+)"/.exec(lines.join('\n'))?.[1];
  if (!dir) throw new Error(`go mod download printed no directory for ${PROMETHEUS_OPERATOR_MODULE}@${PROMETHEUS_OPERATOR_VERSION}:\n${lines.join('\n')}`);
  const file = join(dir, 'example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml');
  if (!existsSync(file)) throw new Error(`${PROMETHEUS_OPERATOR_MODULE}@${PROMETHEUS_OPERATOR_VERSION} has no ${file.slice(dir.length + 1)}`);
  return file;
}
