// Karpenter's verdicts on a pending pod, as events on the pod: what a test
// waits on before it asserts that Karpenter launched nothing. Karpenter
// decides each pending pod in every provisioning batch and says so: either
// `FailedScheduling` ("Failed to schedule pod, …": nothing it can launch fits)
// or `Nominated` ("Pod should schedule on: node/…": capacity it already has
// fits). Once one of them is there, its decision is made; waiting longer
// would only prove the machine is slow.
import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';
import { podEvents, waitForPodEvent } from '../../../local/nodes/pod-status';

export const isFailedScheduling = (event: CoreV1Event): boolean => event.reason === 'FailedScheduling';
export const fromKarpenter = (event: CoreV1Event): boolean => event.source?.component === 'karpenter' || event.reportingComponent === 'karpenter';
export const describeEvents = (events: CoreV1Event[]): string => events.map((e) => `${e.source?.component ?? e.reportingComponent}: ${e.reason}: ${e.message}`).join('\n');

/** Waits for Karpenter's event of `reason` on the pod; a timeout names every event the pod has. */
export async function waitForKarpenterVerdict(core: CoreV1Api, pod: { namespace: string; name: string }, reason: 'FailedScheduling' | 'Nominated', timeoutMs = 60_000): Promise<CoreV1Event> {
  return waitForPodEvent(core, pod, (e) => e.reason === reason && fromKarpenter(e), timeoutMs).catch(async (error: unknown) => {
    throw new Error(`${String(error)}\nevents:\n${describeEvents(await podEvents(core, pod))}`);
  });
}
