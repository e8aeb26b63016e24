// Builds (or finds in the cache) every Go-built part of the harness, one after
// another, and prints where each is:
//
//   npx tsx local/builds/build-all.ts                # every part
//   npx tsx local/builds/build-all.ts karpenter kueue  # only these (the specs' names)
//
// Kubernetes and etcd first (every e2e file and `npm start` need them), then
// Karpenter, Kueue and Prometheus, then the modules whose files the checks
// read (the Prometheus Operator's CRDs, Karpenter's AWS provider).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../lambdas/common/error-message';
import { ensureGoBuild, type GoBuildSpec } from './go-build';
import { KARPENTER_AWS_PROVIDER } from './karpenter-aws-provider';
import { KARPENTER_BUILD } from './karpenter-binaries';
import { KUBE_BUILD } from './kube-binaries';
import { KUEUE_BUILD } from './kueue-binaries';
import { PROMETHEUS_BUILD } from './prometheus-binary';
import { PROMETHEUS_OPERATOR_CRDS } from './prometheus-operator-crds';

export const EVERY_BUILD: readonly GoBuildSpec[] = [KUBE_BUILD, KARPENTER_BUILD, KUEUE_BUILD, PROMETHEUS_BUILD, PROMETHEUS_OPERATOR_CRDS, KARPENTER_AWS_PROVIDER];

/** The specs `names` name (every one when none is given); an unknown name is an error listing the names. */
export function specsNamed(names: readonly string[]): GoBuildSpec[] {
  const unknown = names.filter((name) => !EVERY_BUILD.some((spec) => spec.name === name));
  if (unknown.length > 0) throw new Error(`no build is named ${unknown.join(', ')}; the builds: ${EVERY_BUILD.map((spec) => spec.name).join(', ')}`);
  return names.length === 0 ? [...EVERY_BUILD] : EVERY_BUILD.filter((spec) => names.includes(spec.name));
}

/** Each build in turn (only those named, when names are given); the first that fails ends the run. */
export async function buildAll(names: readonly string[] = [], log: (message: string) => void = console.log): Promise<void> {
  for (const spec of specsNamed(names)) {
    const started = Date.now();
    const build = await ensureGoBuild(spec, log);
    log(`[${spec.name}] ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${build.dir}`);
  }
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  buildAll(process.argv.slice(2)).catch((error: unknown) => {
    console.error(errorMessage(error));
    process.exitCode = 1;
  });
}
