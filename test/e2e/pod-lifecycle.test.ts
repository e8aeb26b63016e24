// npm start's stand-in for the kubelet the local nodes lack (local/start/pod-lifecycle.ts),
// against the real kube-apiserver and the harness's default kube-scheduler: a pod the
// user creates is bound and then marked Running, one that cannot be placed is reported
// once with kube-scheduler's reason, and a deleted one does not stay Terminating.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { PodLifecycle } from '../../local/start/pod-lifecycle';

const harness = e2eHarness();
const { core } = harness;
let namespace = '';
let node: GpuNode | undefined;
const lines: string[] = [];
let lifecycle: PodLifecycle;

beforeAll(async () => {
  // The pod must have exactly one node to go to.
  await harness.resetCluster();
  namespace = await harness.createNamespace('pod-lifecycle');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g4dn.xlarge' });
  lifecycle = new PodLifecycle({
    core,
    // Other files' leftovers are not this test's business.
    ignore: (pod) => pod.metadata?.namespace !== namespace,
    nodeLabel: (name) => (name === node?.name ? 't4' : name),
    report: (line) => lines.push(line),
    onError: (error) => {
      throw error;
    },
  });
});

afterAll(async () => {
  if (node) await deleteGpuNode(harness.nodeClients, node);
  if (namespace) await core.deleteNamespace({ name: namespace });
});

function pod(name: string, gpus: number) {
  return {
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
  };
}

describe('pod lifecycle stand-in (no kubelet)', () => {
  it('marks a bound pod Running, says where it went, and finishes its deletion', async () => {
    await core.createNamespacedPod({ namespace, body: pod('mine', 1) });
    const nodeName = await waitForPodScheduled(core, { namespace, name: 'mine' });
    expect(nodeName).toBe(node?.name);
    await lifecycle.poll();
    const stored = await core.readNamespacedPod({ namespace, name: 'mine' });
    expect(stored.status?.phase).toBe('Running');
    expect(stored.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(lines).toContain(`pod ${namespace}/mine bound to t4 (${nodeName}) by default-scheduler; marked Running, as a kubelet would (these nodes have none)`);

    await core.deleteNamespacedPod({ namespace, name: 'mine' });
    expect((await core.readNamespacedPod({ namespace, name: 'mine' })).metadata?.deletionTimestamp).toBeDefined();
    await lifecycle.poll();
    await expect(core.readNamespacedPod({ namespace, name: 'mine' })).rejects.toThrow(/404|not found/i);
    expect(lines.at(-1)).toContain(`pod ${namespace}/mine deleted`);
  });

  it('reports a pod that cannot be placed once, with kube-scheduler\'s reason', async () => {
    await core.createNamespacedPod({ namespace, body: pod('too-big', 64) });
    await waitForPodEvent(core, { namespace, name: 'too-big' }, (e) => e.reason === 'FailedScheduling');
    const before = lines.length;
    await lifecycle.poll();
    await lifecycle.poll();
    const reported = lines.slice(before);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(new RegExp(`^pod ${namespace}/too-big not scheduled: 0/\\d+ nodes are available: .*Insufficient nvidia\\.com/gpu`));
    expect((await core.readNamespacedPod({ namespace, name: 'too-big' })).status?.phase).toBe('Pending');
  });
});
