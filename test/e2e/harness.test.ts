// Smoke test of the local stand-ins every Kubernetes/AWS-facing test builds on.
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPU_LABEL } from '../../lambdas/labeler/gpu-labels';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { finishTerminatingPods, markPodRunning, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { waitFor } from '../../local/common/wait';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, apps } = harness;
const nodes: GpuNode[] = [];
let namespace = '';

beforeAll(async () => {
  namespace = await harness.createNamespace('harness');
});

afterAll(async () => {
  for (const node of nodes) await deleteGpuNode(harness.nodeClients, node);
  if (namespace) await core.deleteNamespace({ name: namespace });
});

describe('local control plane', () => {
  it('serves the pinned Kubernetes version', async () => {
    const version = await harness.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe(harness.info.controlPlane.kubernetesVersion);
    expect(harness.info.controlPlane.kubernetesVersion).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('creates a GPU node backed by a moto EC2 instance', async () => {
    const node = await createGpuNode(harness.nodeClients, {
      instanceType: 'p4d.24xlarge',
      zone: 'us-east-1b',
      labels: { 'gpu.nvidia.com/model': 'A100' },
    });
    nodes.push(node);

    const stored = await core.readNode({ name: node.name });
    expect(stored.status?.allocatable?.[GPU_RESOURCE]).toBe('8');
    expect(stored.status?.capacity?.cpu).toBe('96');
    expect(stored.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(stored.spec?.providerID).toBe(`aws:///us-east-1b/${node.instanceId}`);
    expect(stored.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('us-east-1b');
    expect(stored.metadata?.labels?.['topology.kubernetes.io/region']).toBe('us-east-1');
    expect(stored.metadata?.labels?.['gpu.nvidia.com/model']).toBe('A100');
    expect(stored.spec?.taints ?? []).toEqual([]);

    const { Reservations } = await harness.ec2.send(new DescribeInstancesCommand({ InstanceIds: [node.instanceId] }));
    const instance = Reservations?.[0]?.Instances?.[0];
    expect(instance?.InstanceType).toBe('p4d.24xlarge');
    expect(instance?.Placement?.AvailabilityZone).toBe('us-east-1b');
    expect(instance?.State?.Name).toBe('running');
  });

  it('runs a Deployment: controller-manager creates pods, the default scheduler binds them, pods become Ready', async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '100m' } } }] },
          },
        },
      },
    });
    const pods = await waitFor('3 pods created by the ReplicaSet controller', async () => {
      const list = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' });
      return list.items.length === 3 ? list.items : undefined;
    });
    for (const pod of pods) {
      const ref = { namespace, name: pod.metadata?.name ?? '' };
      expect(await waitForPodScheduled(core, ref)).toBe(nodes[0]?.name);
      await markPodRunning(core, ref);
    }
    const ready = await waitFor('deployment web readyReplicas=3', async () => {
      const deployment = await apps.readNamespacedDeployment({ namespace, name: 'web' });
      return deployment.status?.readyReplicas === 3 ? deployment : undefined;
    });
    expect(ready.status?.availableReplicas).toBe(3);

    // Scale down: the ReplicaSet controller deletes pods; the harness finishes what a kubelet would.
    await apps.patchNamespacedDeploymentScale(
      { namespace, name: 'web', body: { spec: { replicas: 1 } } },
      MERGE_PATCH_OPTIONS,
    );
    await waitFor('scale-down to 1 pod', async () => {
      await finishTerminatingPods(core, namespace);
      const list = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' });
      return list.items.length === 1 ? true : undefined;
    });
  });

  it('reports FailedScheduling events for a pod that fits nowhere', async () => {
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'too-big' },
        spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '5000' } } }] },
      },
    });
    const event = await waitForPodEvent(core, { namespace, name: 'too-big' }, (e) => e.reason === 'FailedScheduling');
    expect(event.message).toContain('Insufficient cpu');
  });

  it('gives the Lambdas least-privilege identities', async () => {
    const asExtender = new KubeConfig();
    asExtender.loadFromFile(harness.info.controlPlane.lambdaKubeconfigs.extender);
    const extenderCore = asExtender.makeApiClient(CoreV1Api);
    const listed = await extenderCore.listNode();
    expect(listed.items.map((n) => n.metadata?.name)).toContain(nodes[0]?.name);
    await expect(
      extenderCore.patchNode(
        { name: nodes[0]?.name ?? '', body: { metadata: { labels: { x: 'y' } } } },
        MERGE_PATCH_OPTIONS,
      ),
    ).rejects.toThrow(/403|forbidden/i);

    const asLabeler = new KubeConfig();
    asLabeler.loadFromFile(harness.info.controlPlane.lambdaKubeconfigs.labeler);
    // RBAC lets it patch nodes; the write-limit policy (test/e2e/write-limits.test.ts) only its own labels.
    const patched = await asLabeler.makeApiClient(CoreV1Api).patchNode(
      { name: nodes[0]?.name ?? '', body: { metadata: { labels: { [GPU_LABEL.model]: 'harness-test' } } } },
      MERGE_PATCH_OPTIONS,
    );
    expect(patched.metadata?.labels?.[GPU_LABEL.model]).toBe('harness-test');
  });
});
