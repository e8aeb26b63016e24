// Starts the local stand-ins once for the whole e2e project: Kubernetes
// binaries built from source (cached), etcd, kube-apiserver,
// kube-controller-manager, a default kube-scheduler and moto_server; Karpenter
// (its kwok provider launching moto instances) and Kueue are built (cached) for
// the files that start them. Test
// files reach them through test/e2e/support/e2e-context.ts. Nothing here is optional: a
// missing tool fails the run with a message saying what to install.
import type { TestProject } from 'vitest/node';
import { ensureKubeBinaries } from '../../local/builds/kube-binaries';
import { ensureKarpenterBinaries } from '../../local/builds/karpenter-binaries';
import { ensureKueueBinaries } from '../../local/builds/kueue-binaries';
import { startControlPlane, type ControlPlane } from '../../local/control-plane/control-plane';
import type { LocalHarnessInfo } from './support/e2e-context';
import { startMoto, type MotoServer } from '../../local/aws/moto';
import { installProductPolicies } from '../../local/policies/product-policies';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (message: string): void => console.log(message);
  const binaries = await ensureKubeBinaries(log);
  const karpenter = await ensureKarpenterBinaries(log);
  const kueue = await ensureKueueBinaries(log);
  let moto: MotoServer | undefined;
  let controlPlane: ControlPlane | undefined;
  try {
    moto = await startMoto();
    log(`[e2e] moto_server at ${moto.url}`);
    controlPlane = await startControlPlane({
      binaries,
      log,
      keepWorkDir: process.env.KEEP_CONTROL_PLANE_LOGS === '1',
    });
    // Every file runs the Lambdas under the write limits, and admits pods, as deployed.
    await installProductPolicies(controlPlane.info);
  } catch (error) {
    await controlPlane?.stop();
    await moto?.stop();
    throw error;
  }
  const info: LocalHarnessInfo = { controlPlane: controlPlane.info, motoUrl: moto.url, karpenter, kueue };
  project.provide('localHarness', info);

  const started = { controlPlane, moto };
  return async () => {
    await started.controlPlane.stop();
    await started.moto.stop();
  };
}
