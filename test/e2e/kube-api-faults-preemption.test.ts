// A preemption followed, within the extender's cache TTL, by a /filter that
// still sees the victims. With the real kube-scheduler and the deployed TTL
// (5 s): two A100 nodes, each full with one low-priority pod; a high-priority
// pod asking for a whole node makes the scheduler evict the pod on one of them
// and nominate it. Once the victim is gone (the test finishes its graceful
// deletion, as a kubelet would), the scheduler retries at once; a snapshot
// from before the eviction still holds the victim and rejects the nominated
// node, the pod is unschedulable again, and kube-scheduler preempts a second
// time on the other node: a pod killed for nothing. The extender therefore
// judges a pod that carries status.nominatedNodeName on a snapshot refreshed
// for it (docs/extender.md, "Preempt"). Asserts: exactly one victim, the
// preemptor bound to the node it was nominated to.
import { SchedulingV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { finishTerminatingPods, markPodRunning, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;
const scheduling = harness.kubeConfig.makeApiClient(SchedulingV1Api);

const LOW = { name: 'e2e-stale-preemption-low', value: 10 };
const HIGH = { name: 'e2e-stale-preemption-high', value: 1_000_000 };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const nodes: GpuNode[] = [];

async function ensurePriorityClass(pc: { name: string; value: number }, preempts: boolean): Promise<void> {
  await scheduling
    .createPriorityClass({
      body: { metadata: { name: pc.name }, value: pc.value, preemptionPolicy: preempts ? 'PreemptLowerPriority' : 'Never' },
    })
    .catch((error: unknown) => {
      if (!/409|AlreadyExists/i.test(String(error))) throw error;
    });
}

function gpuPod(name: string, priorityClassName: string, extra: Partial<NonNullable<V1Pod['spec']>>): V1Pod {
  return {
    metadata: { name, annotations: { 'gpu.nvidia.com/model': 'A100' } },
    spec: { priorityClassName, containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '8' } } }], ...extra },
  };
}

const deleted = async (name: string): Promise<boolean> =>
  core.readNamespacedPod({ namespace, name }).then(
    (pod) => pod.metadata?.deletionTimestamp !== undefined,
    (error: unknown) => {
      if (/404|not found/i.test(String(error))) return true;
      throw error;
    },
  );

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('stale-preemption');
  await ensurePriorityClass(LOW, false);
  await ensurePriorityClass(HIGH, true);
  const facts = await describeInstanceType(harness.ec2, 'p4d.24xlarge');
  for (const name of ['a100-a', 'a100-b']) nodes.push(await createGpuNode(harness.nodeClients, { instanceType: 'p4d.24xlarge', name, labels: seedGpuLabels(facts) }));
  // The deployed cache TTL (5 s) and settings.
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender);
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(async () => {
  await harness.tearDown(namespace, scheduler, extender);
  for (const pc of [LOW, HIGH]) await scheduling.deletePriorityClass({ name: pc.name }).catch(() => undefined);
});

describe('a preemption followed within the cache TTL by a /filter', () => {
  it('evicts one victim only: the nominated pod is judged on a snapshot that no longer holds it', async () => {
    const [a, b] = nodes;
    if (!a || !b || !extender) throw new Error('setup did not finish');
    for (const [name, node] of [['low-a', a], ['low-b', b]] as const) {
      await core.createNamespacedPod({ namespace, body: gpuPod(name, LOW.name, { nodeName: node.name }) });
      await markPodRunning(core, { namespace, name });
    }
    // The extender's snapshot knows both victims before the preemptor arrives (and is served for its TTL).
    await extender.waitForSnapshot('hold both victims', (snapshot) => ['low-a', 'low-b'].every((name) => snapshot.podsInNamespace(namespace).some((pod) => pod.name === name)));
    await core.createNamespacedPod({ namespace, body: gpuPod('preemptor', HIGH.name, { schedulerName: GPU_SCHEDULER_NAME }) });
    const nominated = await waitFor('the preemptor nominated', async () => (await core.readNamespacedPod({ namespace, name: 'preemptor' })).status?.nominatedNodeName || undefined, {
      timeoutMs: 60_000,
    });
    const first = nominated === a.name ? 'low-a' : 'low-b';
    const other = first === 'low-a' ? 'low-b' : 'low-a';
    // Finish the victim's graceful deletion at once, as a fast kubelet would: the scheduler retries well within the TTL.
    await waitFor(`${first} terminating`, async () => ((await deleted(first)) ? true : undefined), { timeoutMs: 30_000 });
    const finishedAt = Date.now();
    await finishTerminatingPods(core, namespace);

    const boundTo = await waitForPodScheduled(core, { namespace, name: 'preemptor' }, 60_000);
    const bindSeconds = (Date.now() - finishedAt) / 1000;
    // A second preemption would have been a second /preempt call before the binding (asserted below, from
    // the extender's own record, complete once the pod is bound), and would have marked the other pod terminating.
    const secondVictim = await deleted(other);
    console.log(`preemptor bound to ${boundTo} ${bindSeconds.toFixed(1)} s after its victim was gone; second victim evicted: ${String(secondVictim)}`);
    const calls = extender.decisions.filter((d) => d.summary.pod === `${namespace}/preemptor`).map((d) => `${d.verb} kept ${d.summary.kept}/${d.summary.candidates}`);
    console.log(`the preemptor's extender calls: ${calls.join(', ')}`);
    expect(secondVictim).toBe(false);
    expect(boundTo).toBe(nominated);
    // One preemption, and every filter after it kept what kube-scheduler offered.
    const preempts = calls.filter((c) => c.startsWith('preempt'));
    expect(preempts).toHaveLength(1);
    for (const call of calls.slice(calls.indexOf(preempts[0] ?? '') + 1)) expect(call).toMatch(/^(filter|prioritize) kept (\d+)\/\2$/);
  });
});
