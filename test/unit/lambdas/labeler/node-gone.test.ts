import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { InstanceSummary } from '../../../../lambdas/aws';
import type { NodeGateway } from '../../../../lambdas/kube';
import { labelerConfigFromEnv } from '../../../../lambdas/labeler/config';
import { labelInstance } from '../../../../lambdas/labeler/label-instance';
import type { LabelerDeps } from '../../../../lambdas/labeler/labeler-deps';
import { reconcileNodes } from '../../../../lambdas/labeler/reconcile-nodes';

// A node deleted between the labeler finding it and patching it (a Spot
// interruption, Karpenter's consolidation): the patch's 404 is "gone", never
// an error, in the event path and in the scheduled reconcile.
const INSTANCE: InstanceSummary = {
  instanceId: 'i-0123456789abcdef0',
  instanceType: 'g5.xlarge',
  availabilityZone: 'us-east-1a',
  privateDnsName: 'ip-10-0-0-1.ec2.internal',
  state: 'running',
  tags: { 'kubernetes.io/cluster/prod': 'owned' },
};
const NODE: V1Node = { metadata: { name: INSTANCE.privateDnsName, labels: {} }, spec: { providerID: `aws:///us-east-1a/${INSTANCE.instanceId}` } };
const notFound = (): Error => Object.assign(new Error('HTTP 404: nodes "ip-10-0-0-1.ec2.internal" not found'), { code: 404 });

function deps(patchError: Error): LabelerDeps {
  const nodes: NodeGateway = {
    listNodePages: async function* () {
      yield [NODE];
    },
    listNodes: async () => [NODE],
    readNode: async () => NODE,
    patchNodeMetadata: async () => ({}),
    listNodeEvents: async () => [],
    patchNodeLabels: async () => {
      throw patchError;
    },
    patchNodeAnnotations: async () => NODE,
    jsonPatchNode: async () => NODE,
  };
  return {
    config: labelerConfigFromEnv({ CLUSTER_NAME: 'prod' }),
    nodes,
    instances: { byIds: async () => new Map([[INSTANCE.instanceId, INSTANCE]]), byPrivateDnsNames: async () => new Map() },
    gpuTypes: {
      lookup: async () =>
        new Map([[INSTANCE.instanceType, { instanceType: INSTANCE.instanceType, gpus: [{ name: 'A10G', manufacturer: 'NVIDIA', count: 1, memoryMiB: 24576 }], totalMemoryMiB: 24576 }]]),
    },
    reservations: { byIds: async () => new Map() },
    clock: { now: () => 0, sleep: async () => undefined },
  };
}

describe('a node deleted before its labels are written', () => {
  it('is ignored as nodeGone by the event path', async () => {
    await expect(labelInstance(deps(notFound()), INSTANCE.instanceId, 0)).resolves.toMatchObject({ result: 'ignored', reason: 'nodeGone' });
  });

  it('counts as skipped, not failed, in the scheduled reconcile', async () => {
    await expect(reconcileNodes(deps(notFound()))).resolves.toMatchObject({ nodes: 1, skipped: 1, failed: 0, errorsByKind: {} });
  });

  it('any other failure still fails', async () => {
    const error = Object.assign(new Error('HTTP 500'), { code: 500 });
    await expect(labelInstance(deps(error), INSTANCE.instanceId, 0)).rejects.toThrow('HTTP 500');
    await expect(reconcileNodes(deps(error))).resolves.toMatchObject({ failed: 1, errorsByKind: { Kubernetes: 1 } });
  });
});
