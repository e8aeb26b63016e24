// The optional start-up taint against the real kube-apiserver, as the
// labeler's RBAC identity: lifted once the labels are right, by a JSON Patch
// that removes our entry only, so taints of others (and a concurrent change
// to the list) survive.
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { KubeConfig, type V1Taint } from '@kubernetes/client-node';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createNodeGateway, JSON_PATCH_OPTIONS, type NodeGateway } from '../../lambdas/kube';
import { KARPENTER_UNREGISTERED_TAINT_KEY, STARTUP_TAINT, removeStartupTaint } from '../../lambdas/labeler/startup-taint';
import { METRIC } from '../../lambdas/observability/metric-catalog';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { buildLabeler, gpuLabelsOf, scheduledEvent, stateChangeEvent } from './labeler-support';
import { waitFor } from '../../local/common/wait';

const h = e2eHarness();
const created: GpuNode[] = [];
const ours: V1Taint = { ...STARTUP_TAINT };
const gpuOnly: V1Taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
const uninitialized: V1Taint = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

async function taintedNode(instanceType: string, taints: V1Taint[], labels?: Record<string, string>): Promise<GpuNode> {
  const node = await createGpuNode(h.nodeClients, { instanceType, taints, ...(labels ? { labels } : {}) });
  created.push(node);
  return node;
}

const taintsOf = async (name: string): Promise<V1Taint[] | undefined> => (await h.core.readNode({ name })).spec?.taints;

afterAll(async () => {
  for (const node of created) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
});

describe('the start-up taint', () => {
  it('is lifted on the running event once the labels are written; foreign taints stay, in order', async () => {
    const labeler = buildLabeler(h);
    const node = await taintedNode('g5.12xlarge', [gpuOnly, ours, uninitialized]);

    const result = await labeler.handler(stateChangeEvent(node.instanceId));

    expect(result).toMatchObject({ result: 'labeled', startupTaintRemoved: true });
    const after = await h.core.readNode({ name: node.name });
    expect(gpuLabelsOf(after)).toMatchObject({ 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '4' });
    expect(after.spec?.taints).toEqual([gpuOnly, uninitialized]);
    expect(labeler.telemetry.record).toHaveBeenCalledWith(METRIC.startupTaintsRemoved, 1);
  });

  it('is lifted by the scheduled reconcile from a node whose labels were already right, and nothing else is written', async () => {
    const labeler = buildLabeler(h);
    const node = await taintedNode('g4dn.xlarge', [ours, gpuOnly], {
      'gpu.nvidia.com/model': 'T4',
      'gpu.nvidia.com/memory': '16384',
      'gpu.nvidia.com/count': '1',
      'gpu.nvidia.com/manufacturer': 'NVIDIA',
      'gpu.nvidia.com/total-memory': '16384',
      // What the labeler writes on an instance outside any reservation that neither Karpenter nor EKS labelled.
      'gpu.nvidia.com/capacity-type': 'on-demand',
    });
    const before = await h.core.readNode({ name: node.name });

    const summary = await labeler.handler(scheduledEvent);

    expect(summary).toMatchObject({ kind: 'reconcile', failed: 0 });
    expect((summary as { startupTaintsRemoved: number }).startupTaintsRemoved).toBeGreaterThanOrEqual(1);
    const after = await h.core.readNode({ name: node.name });
    expect(after.spec?.taints).toEqual([gpuOnly]);
    expect(after.metadata?.labels).toEqual(before.metadata?.labels);
  });

  it('is lifted only after Karpenter registered the node, whose registration puts the NodePool\'s start-up taints back', async () => {
    const labeler = buildLabeler(h);
    const unregistered: V1Taint = { key: KARPENTER_UNREGISTERED_TAINT_KEY, effect: 'NoExecute' };
    const node = await taintedNode('g5.12xlarge', [unregistered, ours]);

    const invocation = labeler.handler(stateChangeEvent(node.instanceId));
    // The labels are written while Karpenter has not registered the node; our taint stays meanwhile.
    const labelled = await waitFor(`labels on ${node.name}`, async () => {
      const current = await h.core.readNode({ name: node.name });
      return gpuLabelsOf(current)['gpu.nvidia.com/model'] === undefined ? undefined : current;
    });
    expect(labelled.spec?.taints).toEqual([unregistered, ours]);
    // Karpenter's registration, as registration.go patches it: its own taint off, the NodePool's start-up taints merged in.
    await h.core.patchNode({ name: node.name, body: [{ op: 'replace', path: '/spec/taints', value: [ours] }] }, JSON_PATCH_OPTIONS);

    expect(await invocation).toMatchObject({ result: 'labeled', startupTaintRemoved: true });
    expect((await taintsOf(node.name)) ?? []).toEqual([]);
  });

  it('stays on a node the labeler cannot label (its instance is gone)', async () => {
    const labeler = buildLabeler(h);
    const node = await taintedNode('g4dn.xlarge', [ours]);
    await h.ec2.send(new TerminateInstancesCommand({ InstanceIds: [node.instanceId] }));
    await labeler.handler(scheduledEvent);
    expect(await taintsOf(node.name)).toEqual([ours]);
  });

  it('does not lose a taint another controller adds between our read and our patch', async () => {
    const node = await taintedNode('g4dn.xlarge', [ours, uninitialized]);
    const stale = await h.core.readNode({ name: node.name });
    // Someone else puts a taint in front of ours: our index in the list we read is now wrong.
    const added: V1Taint = { key: 'example.com/maintenance', value: 'true', effect: 'NoExecute' };
    await h.core.patchNode({ name: node.name, body: [{ op: 'add', path: '/spec/taints/0', value: added }] }, JSON_PATCH_OPTIONS);

    const kc = new KubeConfig();
    kc.loadFromFile(h.info.controlPlane.lambdaKubeconfigs.labeler);
    const real = createNodeGateway(kc);
    const outcomes: string[] = [];
    const gateway: NodeGateway = {
      ...real,
      jsonPatchNode: vi.fn(async (name, operations) => {
        try {
          const patched = await real.jsonPatchNode(name, operations);
          outcomes.push('applied');
          return patched;
        } catch (error) {
          outcomes.push(`refused ${(error as { code?: number }).code ?? '?'}`);
          throw error;
        }
      }),
    };

    expect(await removeStartupTaint(gateway, stale)).toBe(true);

    // The first patch's `test` failed on the stale index and nothing was applied; the second worked from a fresh read.
    expect(outcomes).toEqual(['refused 422', 'applied']);
    expect(await taintsOf(node.name)).toEqual([added, uninitialized]);
  });
});
