// What a pod sees when the extender's cluster cache cannot be loaded: the
// extender answers /filter with 503 {"Error": "cluster cache unavailable: …"},
// and the real kube-scheduler, with the deployed settings (nodeCacheCapable,
// ignorable: false), fails the attempt with its own error text and keeps the
// pod unbound, never placing it without the extender's verdict.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { podEvents } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { A10G_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let configDir = '';

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-cache-failure');
  // The extender's own credentials, aimed at a loopback port nothing listens on: every listing fails at once.
  configDir = await mkdtemp(join(tmpdir(), 'extender-cache-failure-'));
  const kubeconfig = join(configDir, 'kubeconfig');
  const real = await readFile(harness.info.controlPlane.lambdaKubeconfigs.extender, 'utf8');
  const unreachable = real.replace(/server: .*/g, 'server: https://127.0.0.1:1');
  if (unreachable === real) throw new Error('the extender kubeconfig names no server');
  await writeFile(kubeconfig, unreachable);
  extender = await startRecordingExtender(kubeconfig, { EXTENDER_CACHE_TTL: '1s' });
  await createGpuNode(harness.nodeClients, { instanceType: A10G_NODE_TYPE, seedLabels: true });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(async () => {
  await harness.tearDown(namespace, scheduler, extender);
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

describe('an extender whose cluster cache cannot load (ignorable: false)', () => {
  it('answers /filter 503 and the pod stays Pending with kube-scheduler\'s "code 503" in its FailedScheduling event', async () => {
    if (!extender) throw new Error('setup did not finish');
    await core.createNamespacedPod({ namespace, body: a10gPod('waits-for-cache') });
    const event = await waitFor(
      'a FailedScheduling event naming the extender',
      async () => (await podEvents(core, { namespace, name: 'waits-for-cache' })).find((e) => e.reason === 'FailedScheduling' && /extender/.test(e.message ?? '')),
      { timeoutMs: 60_000 },
    );
    expect(event.message).toMatch(new RegExp(`^failed filter with extender at URL ${extender.adapter.url}/?filter, code 503$`));
    expect((await core.readNamespacedPod({ namespace, name: 'waits-for-cache' })).spec?.nodeName ?? '').toBe('');
    // The extender's side: the reason is in its failures (log line and ExtenderErrors), every answer a 503.
    expect(extender.failures[0]).toMatchObject({ verb: 'filter', status: 503, message: expect.stringMatching(/^cluster cache unavailable: /) });
    expect(extender.responses.length).toBeGreaterThan(0);
    for (const response of extender.responses) expect(response).toMatchObject({ path: expect.stringMatching(/\/filter$/), status: 503 });
  });
});
