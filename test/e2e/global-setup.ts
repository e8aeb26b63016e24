// Starts the local stand-ins for the whole e2e project: Kubernetes binaries
// built from source (cached), then, once per e2e worker, a harness of its own
// (etcd, kube-apiserver, kube-controller-manager, a default kube-scheduler
// and moto_server), so that e2e files run side by side and each still has a
// cluster and an AWS to itself. Karpenter (its kwok provider launching moto
// instances) and Kueue are built (cached) for the files that start them.
// Test files reach their worker's harness through
// test/e2e/support/e2e-context.ts. Nothing here is optional: a missing tool
// fails the run with a message saying what to install.
import type { TestProject } from 'vitest/node';
import { ensureKubeBinaries, type KubeBinaries } from '../../local/builds/kube-binaries';
import { ensureKarpenterBinaries } from '../../local/builds/karpenter-binaries';
import { ensureKueueBinaries } from '../../local/builds/kueue-binaries';
import { startControlPlane, type ControlPlane } from '../../local/control-plane/control-plane';
import type { LocalHarnessInfo } from './support/e2e-context';
import { startMoto, type MotoServer } from '../../local/aws/moto';
import { installProductPolicies } from '../../local/policies/product-policies';

interface Running {
  moto?: MotoServer;
  controlPlane?: ControlPlane;
}

async function stopAll(harnesses: readonly Running[]): Promise<void> {
  for (const { controlPlane, moto } of harnesses) {
    await controlPlane?.stop();
    await moto?.stop();
  }
}

/** One worker's moto_server and control plane, with the product's policies installed. */
async function startHarness(binaries: KubeBinaries, running: Running, env: NodeJS.ProcessEnv, log: (message: string) => void): Promise<Omit<LocalHarnessInfo, 'karpenter' | 'kueue'>> {
  const moto = await startMoto(env);
  running.moto = moto;
  log(`[e2e] moto_server at ${moto.url}`);
  const controlPlane = await startControlPlane({ binaries, log, keepWorkDir: process.env.KEEP_CONTROL_PLANE_LOGS === '1' });
  running.controlPlane = controlPlane;
  // Every file runs the Lambdas under the write limits, and admits pods, as deployed.
  await installProductPolicies(controlPlane.info);
  return { controlPlane: controlPlane.info, motoUrl: moto.url };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (message: string): void => console.log(message);
  const binaries = await ensureKubeBinaries(log);
  const karpenter = await ensureKarpenterBinaries(log);
  const kueue = await ensureKueueBinaries(log);
  // As many harnesses as files that can run at once (VITEST_POOL_ID picks one).
  const workers = project.config.maxWorkers;
  const running: Running[] = Array.from({ length: workers }, () => ({}));
  // A moto_server given in MOTO_URL (.ci/run starts one) serves the first worker; the others start their own.
  const { MOTO_URL: _given, ...withoutGivenMoto } = process.env;
  // Settled, not all: when one fails, the others have finished starting before everything is stopped.
  const started = await Promise.allSettled(running.map((slot, i) => startHarness(binaries, slot, i === 0 ? process.env : withoutGivenMoto, log)));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stopAll(running);
    throw failed.reason;
  }
  const harnesses = started.flatMap((result) => (result.status === 'fulfilled' ? [{ ...result.value, karpenter, kueue }] : []));
  project.provide('localHarnesses', harnesses);
  return () => stopAll(running);
}
