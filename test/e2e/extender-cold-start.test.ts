// A cold extender container slower than kube-scheduler's
// httpTimeout (a 512 MB Lambda listing a 5,000-node cluster needs ~10 s:
// docs/extender.md, "The first listing of a cold instance") makes the GPU pod
// wait, never land where only the extender would have kept it out, through
// the real kube-scheduler with the deployed settings (httpTimeout 5 s,
// ignorable: false). The slow INIT is the ALB adapter's injected cold starts
// (a local handler starts in milliseconds): a request that finds no warm
// container waits for a new one, then the handler runs to the end although
// the scheduler has given up, as Lambda does; a retry while the first is
// still busy starts a second cold one.
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { podEvents, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;

const POD = 'a10g-cold';
/** Longer than the deployed httpTimeout, so the first call times out. */
const COLD_START_MS = APP_CONFIG_DEFAULTS.scheduler.extender.httpTimeoutSeconds * 1000 + 3000;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let a10g: GpuNode | undefined;
let t4: GpuNode | undefined;

/** kube-scheduler's message for an extender call it gave up on: `Post "<url>/filter": context deadline exceeded (…)`. */
const extenderTimeouts = (events: CoreV1Event[], url: string): string[] =>
  events.filter((e) => e.reason === 'FailedScheduling' && (e.message ?? '').includes(`${url}/filter`)).map((e) => e.message ?? '');

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-cold');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender);
  [a10g, t4] = await Promise.all([A10G_NODE_TYPE, T4_NODE_TYPE].map((instanceType) => createGpuNode(harness.nodeClients, { instanceType, seedLabels: true })));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('a cold extender container slower than httpTimeout, ignorable: false', () => {
  it('keeps the A10G pod Pending with the timeout in its events, then the warm container places it on the A10G node', async () => {
    if (!extender || !a10g || !t4) throw new Error('setup did not finish');
    extender.adapter.injectColdStarts(COLD_START_MS);
    await core.createNamespacedPod({ namespace, body: a10gPod(POD) });

    const url = extender.adapter.url;
    const [timeout] = await waitFor(`a FailedScheduling event of ${POD} naming the extender's URL`, async () => {
      const errors = extenderTimeouts(await podEvents(core, { namespace, name: POD }), url);
      return errors.length > 0 ? errors : undefined;
    }, { timeoutMs: 60_000 });
    // kube-scheduler's HTTP client gave up on the extender; the pod is not bound anywhere.
    expect(timeout).toMatch(/deadline exceeded/);
    expect((await core.readNamespacedPod({ namespace, name: POD })).spec?.nodeName ?? '').toBe('');

    expect(await waitForPodScheduled(core, { namespace, name: POD }, 90_000), `a10g=${a10g.name} t4=${t4.name}`).toBe(a10g.name);
    // The retries that came while a container was still in INIT started cold ones too (as on
    // Lambda); the pod was bound by the first answer that came back in time.
    const adapter = extender.adapter;
    expect(adapter.coldStarts).toBeGreaterThanOrEqual(2);
    // Every invocation ran to the end, also those whose caller had left, and every filter,
    // cold or warm, kept only the A10G node of the two.
    await waitFor('every cold invocation to run to the end', () => (adapter.completedInvocations >= adapter.coldStarts ? true : undefined), {
      timeoutMs: 2 * COLD_START_MS,
    });
    const filters = extender.filterDecisionsOf(namespace, POD);
    expect(filters.length).toBeGreaterThanOrEqual(2);
    for (const decision of filters) expect(decision).toMatchObject({ mode: 'NodeNames', candidates: 2, kept: 1 });
  });
});
