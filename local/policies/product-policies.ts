// The product's own admission policies on a running local control plane, as
// the stack deploys them: the write limits of the labeler's and the
// reconciler's identities (write-limit-policy.ts) and the GPU-intent policies
// (gpu-intent-policies.ts). What runs the Lambdas as deployed installs them
// (the e2e global setup, `npm start`, the benchmarks' cluster harness); a
// control plane that only reads or replays pods (the simulator, the simulate
// and scale benchmarks) does without.
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlaneInfo } from '../control-plane/control-plane';
import { installGpuIntentPolicies } from './gpu-intent-policies';
import { installWriteLimitPolicies } from './write-limit-policy';

/** Installs both sets and waits until the API server enforces each. */
export async function installProductPolicies(controlPlane: Pick<ControlPlaneInfo, 'adminKubeconfig' | 'lambdaKubeconfigs'>): Promise<void> {
  const admin = new KubeConfig();
  admin.loadFromFile(controlPlane.adminKubeconfig);
  await installWriteLimitPolicies(admin, controlPlane.lambdaKubeconfigs);
  await installGpuIntentPolicies(admin);
}
