// A throttled extender Lambda (reserved concurrency used up) makes
// GPU pods wait, never land where only the extender would have kept them
// out, through the real kube-scheduler with the deployed extender settings
// (ignorable: false). The throttle is the ALB adapter's injected
// `lambda-throttled` fault (the ALB's 503 when Lambda refuses the invoke): no
// local handler can produce it. The handler never runs before the throttle
// ends, so the first answer afterwards is also a cold container's: empty
// cache, first listing of the cluster inside the scheduler's httpTimeout.
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { podEvents, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;

const PODS = ['a10g-0', 'a10g-1', 'a10g-2'];

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let a10g: GpuNode | undefined;
let t4: GpuNode | undefined;

const extenderErrors = (events: CoreV1Event[]): string[] =>
  events.filter((e) => e.reason === 'FailedScheduling' && /extender/i.test(e.message ?? '')).map((e) => e.message ?? '');

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-throttle');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  // Throttled from the very first call: the container has never answered.
  extender.adapter.injectFault('lambda-throttled');
  [a10g, t4] = await Promise.all([A10G_NODE_TYPE, T4_NODE_TYPE].map((instanceType) => createGpuNode(harness.nodeClients, { instanceType, seedLabels: true })));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('a throttled extender Lambda (ALB 503), ignorable: false', () => {
  it('keeps A10G pods Pending with the extender error in their events, then a cold container places them on the A10G node', async () => {
    if (!extender || !a10g || !t4) throw new Error('setup did not finish');
    await Promise.all(PODS.map((name) => core.createNamespacedPod({ namespace, body: a10gPod(name) })));

    // Every pod has been tried and failed on the extender's 503, more than once in all.
    for (const name of PODS) {
      await waitFor(`a FailedScheduling event of ${name} naming the extender`, async () =>
        extenderErrors(await podEvents(core, { namespace, name })).length > 0 ? true : undefined,
      { timeoutMs: 60_000 });
    }
    await waitFor('the scheduler to retry through the throttle', async () => ((extender?.adapter.faultedRequests ?? 0) > PODS.length ? true : undefined), {
      timeoutMs: 60_000,
    });
    for (const name of PODS) {
      const pod = await core.readNamespacedPod({ namespace, name });
      expect(pod.spec?.nodeName ?? '', name).toBe('');
      expect(extenderErrors(await podEvents(core, { namespace, name }))[0], name).toMatch(/code 503/);
    }
    // The handler never ran: the throttle, not an extender answer, kept them Pending.
    expect(extender.responses).toEqual([]);

    extender.adapter.injectFault(undefined);
    const placed = await Promise.all(PODS.map((name) => waitForPodScheduled(core, { namespace, name }, 90_000)));
    expect(placed, `a10g=${a10g.name} t4=${t4.name}`).toEqual(PODS.map(() => a10g?.name));
    // Each placement was the extender's decision over both nodes, every answer a 200.
    for (const name of PODS) {
      expect(extender.filterDecisionsOf(namespace, name)[0]).toMatchObject({ mode: 'NodeNames', candidates: 2, kept: 1 });
    }
    expect(extender.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
