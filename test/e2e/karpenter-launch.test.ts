// Karpenter (built from its Go module, kwok cloud provider) gives a pending GPU
// pod the capacity it asks for: the gpu-scheduler kube-scheduler, calling the
// extender, leaves the pod Unschedulable on a cluster of A10G nodes; Karpenter
// picks the instance type from EC2's real GPU types (labels as its AWS
// provider writes them) and launches a node; the pod binds there once the
// extender accepts it. A pod no type can satisfy gets reasons and no launch.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { e2eHarness } from './support/e2e-context';
import { fromKarpenter, isFailedScheduling, waitForKarpenterVerdict } from './support/karpenter-events';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import type { Karpenter, NodeClaim } from '../../local/addons/karpenter';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

const harness = e2eHarness();
const { core } = harness;
process.env.EXTENDER_CACHE_TTL = '1000ms';

const GPU_NAME_LABEL = 'karpenter.k8s.aws/instance-gpu-name';

let adapter: AlbAdapter | undefined;
let scheduler: ManagedProcess | undefined;
let karpenter: Karpenter | undefined;
let namespace = '';
/** Per pod, the nodes the extender's filter let through, in order of the calls. */
const passedByExtender = new Map<string, string[][]>();

interface FilterExchange {
  request: { Pod?: { metadata?: { name?: string } } };
  result: { NodeNames?: string[] | null };
}

beforeAll(async () => {
  await harness.resetCluster();
  const { createHandler } = await import('../../lambdas/extender/handler');
  const handler = createHandler(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const result = await handler(event, context);
      // Remembers the extender's filter verdicts: the test shows it accepted the launched node.
      if (event.path === '/filter' && event.body && result.statusCode === 200 && result.body) {
        const exchange: FilterExchange = { request: JSON.parse(event.body) as FilterExchange['request'], result: JSON.parse(result.body) as FilterExchange['result'] };
        const pod = exchange.request.Pod?.metadata?.name ?? '?';
        passedByExtender.set(pod, [...(passedByExtender.get(pod) ?? []), exchange.result.NodeNames ?? []]);
      }
      return result;
    },
  });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));
  namespace = await harness.createNamespace('karpenter');
  karpenter = await harness.startKarpenter();
  // The cluster's existing GPU capacity: A10G nodes as Karpenter would have labelled them.
  const a10g = karpenter.instanceTypes.find((type) => type.kwok.name === 'g5.12xlarge');
  if (!a10g) throw new Error('g5.12xlarge is missing from the instance types');
  for (const zone of ['us-east-1a', 'us-east-1b']) await createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', zone, labels: a10g.labels });
}, 180_000);

afterAll(async () => {
  if (karpenter) console.log(`--- Karpenter log tail ---\n${karpenter.logTail(20)}`);
  await karpenter?.stop();
  // stop() leaves nothing of Karpenter's behind for the next file.
  if (karpenter) expect(await karpenter.listNodes()).toEqual([]);
  if (karpenter) expect(await karpenter.listNodeClaims()).toEqual([]);
  await harness.tearDown(namespace, scheduler, adapter);
}, 120_000);

function gpuPod(name: string, gpus: number, gpuName: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: GPU_NAME_LABEL, operator: 'In', values: [gpuName] }] }],
          },
        },
      },
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: String(gpus) } } }],
    },
  };
}


describe('Karpenter launches GPU capacity for the gpu-scheduler', () => {
  it('launches a p5.48xlarge (H100) for a pod that needs an H100 on a cluster of A10G nodes; the pod binds there', async () => {
    if (!karpenter) throw new Error('Karpenter did not start');
    const name = 'wants-h100';
    await core.createNamespacedPod({ namespace, body: gpuPod(name, 1, 'h100') });

    // The gpu-scheduler finds no node first: that is what makes the pod Karpenter's to provision.
    await waitForPodEvent(core, { namespace, name }, (e) => isFailedScheduling(e) && !fromKarpenter(e), 60_000);

    const claim = await waitFor(
      'a NodeClaim launched by Karpenter',
      async () => (await karpenter?.listNodeClaims())?.find((c) => c.status?.nodeName),
      { timeoutMs: 90_000 },
    );
    expect(claim.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('p5.48xlarge');

    const nodeName = await waitForPodScheduled(core, { namespace, name }, 120_000);
    expect(nodeName).toBe(claim.status?.nodeName);
    // kube-scheduler binds only to nodes the extender (ignorable: false) let through its filter.
    expect(passedByExtender.get(name)?.at(-1)).toEqual([nodeName]);
    const node = await core.readNode({ name: nodeName });
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.allocatable?.[GPU_RESOURCE]).toBe('8');
    expect(node.metadata?.labels).toMatchObject({
      [GPU_NAME_LABEL]: 'h100',
      'karpenter.k8s.aws/instance-gpu-count': '8',
      'karpenter.k8s.aws/instance-gpu-memory': '81920',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.sh/nodepool': karpenter.nodePoolName,
    });
    // Karpenter lifted its registration taint and found the node initialized (Ready, GPUs registered).
    expect(node.spec?.taints ?? []).not.toContainEqual(expect.objectContaining({ key: 'karpenter.sh/unregistered' }));
    const initialized = await waitFor(
      `NodeClaim ${claim.metadata.name} Initialized`,
      async () => (await karpenter?.listNodeClaims())?.find((c: NodeClaim) => c.metadata.name === claim.metadata.name && c.status?.conditions?.some((k) => k.type === 'Initialized' && k.status === 'True')),
      { timeoutMs: 60_000 },
    );
    expect(initialized.status?.nodeName).toBe(nodeName);
    // Exactly one launch for one pod.
    expect(await karpenter.listNodeClaims()).toHaveLength(1);
  }, 300_000);

  it.each([
    {
      name: 'wants-16-gpus',
      gpus: 16,
      gpuName: 'h100',
      // The H100 node launched above has 8: too few, and no type has more.
      scheduler: /Insufficient nvidia\.com\/gpu/,
      karpenter: /no instance type has enough resources.*"nvidia\.com\/gpu":"16"/,
    },
    {
      name: 'wants-b300',
      gpus: 1,
      gpuName: 'b300',
      scheduler: /didn't match Pod's node affinity/,
      karpenter: /no instance type had enough resources or had a required offering, requirements=karpenter\.k8s\.aws\/instance-gpu-name In \[b300\]/,
    },
  ])('launches nothing for a pod no instance type can satisfy ($name) and says why', async ({ name, gpus, gpuName, scheduler: schedulerSays, karpenter: karpenterSays }) => {
    if (!karpenter) throw new Error('Karpenter did not start');
    const before = (await karpenter.listNodeClaims()).map((c) => c.metadata.name);
    await core.createNamespacedPod({ namespace, body: gpuPod(name, gpus, gpuName) });

    const schedulerReason = await waitForPodEvent(core, { namespace, name }, (e) => isFailedScheduling(e) && !fromKarpenter(e), 60_000);
    expect(schedulerReason.message).toMatch(/0\/\d+ nodes are available/);
    expect(schedulerReason.message).toMatch(schedulerSays);
    // Karpenter's own verdict, as an event on the pod.
    const karpenterReason = await waitForKarpenterVerdict(core, { namespace, name }, 'FailedScheduling');
    expect(karpenterReason.message).toMatch(karpenterSays);

    // Karpenter's decision is made (its event): it launched nothing.
    expect((await karpenter.listNodeClaims()).map((c) => c.metadata.name)).toEqual(before);
    const pod = await core.readNamespacedPod({ namespace, name });
    expect(pod.spec?.nodeName).toBeUndefined();
  }, 180_000);
});
