// Prometheus (github.com/prometheus/prometheus/cmd/prometheus) at the version
// go-modules/prometheus-binaries/go.mod pins, for the e2e files that scrape the
// gpu-scheduler with a real Prometheus. Built without the web UI's assets
// (the `builtinassets` tag): the HTTP API, which the tests query, is all there.
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
};

/** Returns the cached build, building it first when needed. */
export async function ensurePrometheusBinary(log: (message: string) => void = console.log): Promise<PrometheusBinary> {
  const build = await ensureGoBuild(PROMETHEUS_BUILD, log);
  return { version: build.version, binary: build.binary('prometheus') };
}
