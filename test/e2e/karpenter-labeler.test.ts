// Our labeler on the nodes Karpenter launches, as on EKS: the harness's
// Karpenter (kwok provider wrapped to launch EC2 instances in moto) backs each
// NodeClaim with an instance of the chosen type in the chosen zone, and its
// Node carries that instance's providerID (aws:///<zone>/<instance-id>) and
// private DNS name. The labeler, handed the instance's `running` event and
// then its scheduled reconcile, finds the node from the instance and adds our
// gpu.nvidia.com/* labels beside Karpenter's karpenter.k8s.aws/instance-gpu-*
// ones; labels it does not own are left as they were. Deleting the NodeClaim
// terminates the instance.
import { DescribeInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import { CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPU_LABEL, KARPENTER_GPU_LABEL } from '../../lambdas/labeler/gpu-labels';
import { instanceIdFromProviderId } from '../../lambdas/labeler/node-match';
import { e2eHarness } from './support/e2e-context';
import { LOCAL_CLUSTER_NAME } from '../../local/nodes/gpu-nodes';
import type { Karpenter, NodeClaim } from '../../local/addons/karpenter';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { waitFor } from '../../local/common/wait';
import { buildLabeler, scheduledEvent, stateChangeEvent } from './labeler-support';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, ec2 } = harness;
const custom = harness.kubeConfig.makeApiClient(CustomObjectsApi);

/** A label of someone else's, put on the node before the labeler runs. */
const FOREIGN_LABEL = { 'example.com/team': 'vision' };
/** L40S: the cheapest type of the list with that GPU is g6e.xlarge. */
const GPU_NAME = 'l40s';

let karpenter: Karpenter | undefined;
let namespace = '';
let claim: NodeClaim | undefined;
let nodeName = '';
let instanceId = '';

async function describeInstance(id: string): Promise<Instance | undefined> {
  const { Reservations } = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return Reservations?.flatMap((reservation) => reservation.Instances ?? []).find((instance) => instance.InstanceId === id);
}

/** A GPU pod for the default scheduler, asking an L40S in Karpenter's own label: unschedulable until Karpenter launches one. */
function l40sPod(name: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: KARPENTER_GPU_LABEL.name, operator: 'In', values: [GPU_NAME] }] }],
          },
        },
      },
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: '1' } } }],
    },
  };
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('karpenter-labeler');
  karpenter = await harness.startKarpenter();
}, 180_000);

afterAll(async () => {
  if (karpenter) console.log(`--- Karpenter log tail ---\n${karpenter.logTail(20)}`);
  await karpenter?.stop();
  await harness.tearDown(namespace);
}, 120_000);

describe('a node Karpenter launches is an EC2 instance the labeler labels, as on EKS', () => {
  it('each NodeClaim is a running instance of the chosen type in the chosen zone, and its node carries the instance\'s providerID and private DNS name', async () => {
    const name = 'wants-l40s';
    await core.createNamespacedPod({ namespace, body: l40sPod(name) });
    claim = await waitFor('a NodeClaim launched by Karpenter', async () => (await karpenter?.listNodeClaims())?.find((c) => c.status?.nodeName), { timeoutMs: 120_000 });
    nodeName = await waitForPodScheduled(core, { namespace, name }, 120_000);
    expect(nodeName).toBe(claim.status?.nodeName);

    const providerID = claim.status?.providerID ?? '';
    expect(providerID).toMatch(/^aws:\/\/\/us-east-1[a-c]\/i-[0-9a-f]+$/);
    instanceId = instanceIdFromProviderId(providerID) ?? '';
    const node = await core.readNode({ name: nodeName });
    expect(node.spec?.providerID).toBe(providerID);

    const instance = await describeInstance(instanceId);
    expect(instance?.State?.Name).toBe('running');
    expect(instance?.InstanceType).toBe('g6e.xlarge');
    expect(instance?.InstanceType).toBe(node.metadata?.labels?.['node.kubernetes.io/instance-type']);
    expect(instance?.Placement?.AvailabilityZone).toBe(node.metadata?.labels?.['topology.kubernetes.io/zone']);
    expect(providerID).toBe(`aws:///${instance?.Placement?.AvailabilityZone ?? '?'}/${instanceId}`);
    // Named as EKS names nodes, so the labeler's one-GET lookup by private DNS name finds it.
    expect(nodeName).toBe(instance?.PrivateDnsName);
    // Tagged as Karpenter's AWS provider tags its instances: for this cluster, with its NodePool and NodeClaim.
    const tags = Object.fromEntries((instance?.Tags ?? []).map((tag) => [tag.Key, tag.Value]));
    expect(tags).toMatchObject({
      [`kubernetes.io/cluster/${LOCAL_CLUSTER_NAME}`]: 'owned',
      'karpenter.sh/nodepool': karpenter?.nodePoolName,
      'karpenter.sh/nodeclaim': claim.metadata.name,
    });
    expect(claim.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('g6e.xlarge');
  }, 300_000);

  it('the labeler, on the instance\'s running event, adds our gpu.nvidia.com labels next to Karpenter\'s and leaves the others as they were', async () => {
    if (!nodeName || !instanceId) throw new Error('no launched node (the launch case failed)');
    await core.patchNode({ name: nodeName, body: { metadata: { labels: FOREIGN_LABEL } } }, MERGE_PATCH_OPTIONS);
    const before = (await core.readNode({ name: nodeName })).metadata?.labels ?? {};
    // Karpenter's GPU labels are there before ours, from the instance type it launched.
    expect(before[KARPENTER_GPU_LABEL.name]).toBe(GPU_NAME);
    expect(Object.keys(before).filter((key) => key.startsWith('gpu.nvidia.com/'))).toEqual([]);

    const labeler = buildLabeler(harness);
    const result = await labeler.handler(stateChangeEvent(instanceId));
    expect(result).toMatchObject({ kind: 'instance', instanceId, result: 'labeled', nodeName });

    const after = (await core.readNode({ name: nodeName })).metadata?.labels ?? {};
    // Ours, from EC2's description of the instance's type: the same GPU Karpenter's labels name.
    expect(after[GPU_LABEL.model]).toBe('L40S');
    expect(after[GPU_LABEL.manufacturer]).toBe('NVIDIA');
    expect(after[GPU_LABEL.count]).toBe(before[KARPENTER_GPU_LABEL.count]);
    expect(after[GPU_LABEL.memory]).toBe(before[KARPENTER_GPU_LABEL.memory]);
    expect(Number(after[GPU_LABEL.totalMemory])).toBe(Number(before[KARPENTER_GPU_LABEL.memory]) * Number(before[KARPENTER_GPU_LABEL.count]));
    // Every label that was there (Karpenter's, the NodePool's, the foreign one) is unchanged; only ours were added.
    expect(after).toMatchObject(before);
    expect(after).toMatchObject(FOREIGN_LABEL);
    expect(Object.keys(after).filter((key) => !(key in before)).every((key) => key.startsWith('gpu.nvidia.com/'))).toBe(true);

    // The scheduled reconcile finds the node right as it is.
    const reconcile = await labeler.handler(scheduledEvent);
    expect(reconcile).toMatchObject({ kind: 'reconcile', failed: 0 });
    if (reconcile.kind !== 'reconcile') throw new Error('expected a reconcile summary');
    expect(reconcile.labeledNodes).not.toContain(nodeName);
    expect((await core.readNode({ name: nodeName })).metadata?.labels).toEqual(after);
  }, 120_000);

  it('deleting the NodeClaim terminates its instance and removes its node', async () => {
    if (!claim || !instanceId) throw new Error('no launched node (the launch case failed)');
    // Without a kubelet a bound pod never finishes a drain: delete it first, leaving the node empty.
    await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
    await custom.deleteClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', name: claim.metadata.name });
    await waitFor(`instance ${instanceId} terminated`, async () => ((await describeInstance(instanceId))?.State?.Name === 'terminated' ? true : undefined), { timeoutMs: 120_000 });
    await waitFor(`node ${nodeName} deleted`, async () => ((await core.listNode()).items.some((node) => node.metadata?.name === nodeName) ? undefined : true), { timeoutMs: 60_000 });
    await waitFor(`NodeClaim ${claim.metadata.name} deleted`, async () => ((await karpenter?.listNodeClaims())?.length === 0 ? true : undefined), { timeoutMs: 60_000 });
  }, 240_000);
});
