// Prometheus (github.com/prometheus/prometheus/cmd/prometheus) at the version
// go-modules/prometheus-binaries/go.mod pins, for the e2e files that scrape the
// gpu-scheduler with a real Prometheus. Built without the web UI's assets
// (the `builtinassets` tag): the HTTP API, which the tests query, is all there.
// Of its service discoveries only Kubernetes' is built (the e2e scrape finds
// the scheduler's pods with kubernetes_sd_configs; static and file discovery
// are always in): the `remove_all_sd` and `enable_kubernetes_sd` tags of
// plugins/, which leave out the clouds' SDKs, 1,275 packages instead of 1,518.
import { join } from 'node:path';
import { ensureGoBuild, type GoBuildSpec } from './go-build';

export interface PrometheusBinary {
  /** The module version (Prometheus 3.x releases are v0.3xx.y module versions). */
  version: string;
  binary: string;
}

export const PROMETHEUS_BUILD: GoBuildSpec = {
  name: 'prometheus',
  purpose: 'Prometheus (github.com/prometheus/prometheus/cmd/prometheus)',
  moduleDir: join(import.meta.dirname, 'go-modules', 'prometheus-binaries'),
  module: 'github.com/prometheus/prometheus',
  packages: ['github.com/prometheus/prometheus/cmd/prometheus'],
  tags: ['remove_all_sd', 'enable_kubernetes_sd'],
};

/** Returns the cached build, building it first when needed. */
export async function ensurePrometheusBinary(log: (message: string) => void = console.log): Promise<PrometheusBinary> {
  const build = await ensureGoBuild(PROMETHEUS_BUILD, log);
  return { version: build.version, binary: build.binary('prometheus') };
}
