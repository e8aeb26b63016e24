// End-to-end scenarios: a real kube-scheduler (profile gpu-scheduler)
// calls the extender Lambda handler, which runs in-process behind the local ALB
// adapter, so the ALB event path is what is tested. Each scenario runs in both
// nodeCacheCapable modes (scenario 6).
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { e2eHarness } from './support/e2e-context';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, deleteGpuNode, seedGpuLabels, describeInstanceType, type GpuNode, type GpuNodeSpec } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { markPodRunning, podEvents, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { waitForExtenderToCatchUp } from '../../local/extender-host/extender-snapshot';
import type { Extender } from '../../lambdas/extender/extender-handler';

const harness = e2eHarness();
const { core } = harness;

// Set before the handler module loads its config.
/** How long the extender may serve a cluster snapshot (as short as a test can use: scenarios also refresh it, see settle). */
const CACHE_TTL_MS = 1_000;
process.env.EXTENDER_CACHE_TTL = `${CACHE_TTL_MS}ms`;

interface FilterRequestShape {
  NodeNames?: string[] | null;
  Nodes?: { items?: unknown[] | null } | null;
}
const filterRequests: FilterRequestShape[] = [];
const scoresByPod = new Map<string, { Host: string; Score: number }[]>();

let adapter: AlbAdapter;
let extender: Extender | undefined;
let namespace = '';
const created: GpuNode[] = [];

beforeAll(async () => {
  // Imported after the environment is set: the handler reads it when its module loads.
  const { albHandlerOf, createExtender } = await import('../../lambdas/extender/extender-handler');
  // The extender reads its cluster view (nodes, bound pods) with its own least-privilege identity.
  extender = createExtender(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  const handler = albHandlerOf(extender);
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      // Remembers which node form kube-scheduler sent, to prove each mode is really exercised,
      // and the scores the extender gave, to explain a placement when an assertion fails.
      if (event.path === '/filter' && event.body) filterRequests.push(JSON.parse(event.body) as FilterRequestShape);
      const result = await handler(event, context);
      if (event.path === '/prioritize' && event.body && result.statusCode === 200 && result.body) {
        const pod = (JSON.parse(event.body) as { Pod?: { metadata?: { name?: string } } }).Pod?.metadata?.name ?? '?';
        scoresByPod.set(pod, JSON.parse(result.body) as { Host: string; Score: number }[]);
      }
      return result;
    },
  });
  namespace = await harness.createNamespace('extender');
  // The extender's scores depend on every bound pod (its fragmentation model learns the
  // cluster's typical pod shapes), so start from a cluster without earlier files' leftovers.
  await harness.resetCluster();
});

afterAll(async () => {
  await adapter?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace });
});

interface GpuPodSpec {
  name: string;
  gpus: number;
  model?: string;
  memoryMiB?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Bind directly (a pod already running there), bypassing the scheduler. */
  nodeName?: string;
}

function gpuPod(spec: GpuPodSpec): V1Pod {
  const annotations: Record<string, string> = { ...spec.annotations };
  if (spec.model) annotations['gpu.nvidia.com/model'] = spec.model;
  if (spec.memoryMiB) annotations['gpu.nvidia.com/memory'] = String(spec.memoryMiB);
  return {
    metadata: { name: spec.name, labels: spec.labels ?? {}, annotations },
    spec: {
      ...(spec.nodeName ? { nodeName: spec.nodeName } : { schedulerName: GPU_SCHEDULER_NAME }),
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(spec.gpus) } } }],
    },
  };
}

async function createPod(spec: GpuPodSpec): Promise<V1Pod> {
  const pod = await core.createNamespacedPod({ namespace, body: gpuPod(spec) });
  if (spec.nodeName) await markPodRunning(core, { namespace, name: spec.name });
  return pod;
}

async function scheduledNode(name: string): Promise<string> {
  return waitForPodScheduled(core, { namespace, name }, 90_000);
}

/** A GPU node with the labels the labeler writes. */
async function gpuNode(spec: GpuNodeSpec): Promise<GpuNode> {
  const facts = await describeInstanceType(harness.ec2, spec.instanceType);
  const node = await createGpuNode(harness.nodeClients, { ...spec, labels: { ...seedGpuLabels(facts), ...spec.labels } });
  created.push(node);
  return node;
}

/** Removes the scenario's nodes and pods so the next scenario sees only its own. */
async function cleanUp(): Promise<void> {
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  while (created.length > 0) {
    const node = created.pop();
    if (node) await deleteGpuNode(harness.nodeClients, node);
  }
  await waitFor('pods of the previous scenario to be gone', async () => {
    const pods = await core.listNamespacedPod({ namespace });
    return pods.items.length === 0 ? true : undefined;
  });
}

/** Lets the extender's cluster snapshot catch up with the nodes and pods created just now. */
const settle = (): Promise<void> => waitForExtenderToCatchUp(extender ?? fail(), core, namespace);

function fail(): never {
  throw new Error('setup did not finish');
}

const failedSchedulingMessages = (events: CoreV1Event[]): string[] =>
  events.filter((e) => e.reason === 'FailedScheduling').map((e) => e.message ?? '');

describe.each([
  { nodeCacheCapable: true, label: 'nodeCacheCapable: true (NodeNames)' },
  { nodeCacheCapable: false, label: 'nodeCacheCapable: false (full Nodes)' },
])('extender via ALB, $label', ({ nodeCacheCapable }) => {
  let scheduler: ManagedProcess | undefined;

  beforeAll(async () => {
    await adapter.start();
    // The deployed settings in both of kube-scheduler's modes.
    scheduler = await harness.startGpuScheduler({ ...deployedExtenderSettings(adapter.url), nodeCacheCapable });
  });

  afterAll(async () => {
    await scheduler?.stop();
  });

  afterEach(async () => {
    await adapter.start();
    await cleanUp();
  });

  it('1: puts an A100/40960 MiB 2-GPU pod on the A100 node with ≥2 free GPUs among mixed nodes', async () => {
    const busyA100 = await gpuNode({ instanceType: 'p4d.24xlarge', zone: 'us-east-1a' });
    const freeA100 = await gpuNode({ instanceType: 'p4d.24xlarge', zone: 'us-east-1b' });
    await gpuNode({ instanceType: 'p3dn.24xlarge', zone: 'us-east-1a' }); // V100
    await gpuNode({ instanceType: 'g4dn.xlarge', zone: 'us-east-1a' }); // T4
    await gpuNode({ instanceType: 'g5.12xlarge', zone: 'us-east-1b' }); // A10G ×4
    await createPod({ name: 'occupant', gpus: 7, nodeName: busyA100.name });
    await settle();

    filterRequests.length = 0;
    await createPod({ name: 'a100-pair', gpus: 2, model: 'A100', memoryMiB: 40960 });
    expect(await scheduledNode('a100-pair')).toBe(freeA100.name);

    // Scenario 6: the scheduler really used this mode's wire form. It still
    // counts GPUs itself (ignoredByScheduler: false), so the busy A100 (1 free)
    // and the 1-GPU T4 never reach the extender: it decides among the other 3.
    const request = filterRequests.at(-1);
    if (nodeCacheCapable) {
      expect(request?.NodeNames).toHaveLength(3);
      expect(request?.NodeNames).not.toContain(busyA100.name);
      expect(request?.Nodes ?? null).toBeNull();
    } else {
      expect(request?.Nodes?.items).toHaveLength(3);
      expect(request?.NodeNames ?? null).toBeNull();
    }
  });

  it('2: keeps a pod no node can satisfy Pending, with the extender reason in FailedScheduling', async () => {
    await gpuNode({ instanceType: 'p4d.24xlarge' }); // A100
    await gpuNode({ instanceType: 'g5.12xlarge' }); // A10G
    await settle();
    await createPod({ name: 'wants-h100', gpus: 1, model: 'H100' });

    const event = await waitForPodEvent(core, { namespace, name: 'wants-h100' }, (e) => e.reason === 'FailedScheduling', 90_000);
    // The scheduler folds the extender's per-node FailedNodes messages into the event.
    expect(event.message).toMatch(/0\/2 nodes are available/);
    expect(event.message).toContain('pod wants H100, node has A100');
    expect(event.message).toContain('pod wants H100, node has A10G');
    const pod = await core.readNamespacedPod({ namespace, name: 'wants-h100' });
    expect(pod.spec?.nodeName ?? '').toBe('');
    expect(pod.status?.phase).toBe('Pending');
  });

  it('3: packs 1-GPU pods onto the partly used 8-GPU node before touching the empty one', async () => {
    const partly = await gpuNode({ instanceType: 'p4d.24xlarge', zone: 'us-east-1a' });
    const empty = await gpuNode({ instanceType: 'p4d.24xlarge', zone: 'us-east-1a' });
    await createPod({ name: 'occupant', gpus: 5, nodeName: partly.name });
    await settle();

    const placements: string[] = [];
    for (let i = 0; i < 4; i++) {
      const name = `single-${i}`;
      await createPod({ name, gpus: 1 });
      placements.push(await scheduledNode(name));
      await settle();
    }
    // 3 free GPUs on the partly used node are filled first; only the 4th pod opens the empty node.
    const scores = JSON.stringify(Object.fromEntries([...scoresByPod].filter(([pod]) => pod.startsWith('single-'))));
    expect(placements, `partly=${partly.name} empty=${empty.name} extender scores=${scores}`).toEqual([
      partly.name,
      partly.name,
      partly.name,
      empty.name,
    ]);
  });

  it('4: with the extender down (ignorable: false) GPU pods stay Pending, and schedule once it is back', async () => {
    const node = await gpuNode({ instanceType: 'g5.12xlarge' });
    await adapter.stop();

    await createPod({ name: 'waits-for-extender', gpus: 1 });
    const event = await waitForPodEvent(
      core,
      { namespace, name: 'waits-for-extender' },
      (e) => e.reason === 'FailedScheduling',
      90_000,
    );
    expect(event.message).toMatch(/connection refused|connect|extender/i);
    expect((await core.readNamespacedPod({ namespace, name: 'waits-for-extender' })).spec?.nodeName ?? '').toBe('');

    await adapter.start();
    expect(await scheduledNode('waits-for-extender')).toBe(node.name);
    const messages = failedSchedulingMessages(await podEvents(core, { namespace, name: 'waits-for-extender' }));
    expect(messages.length).toBeGreaterThan(0);
  });

  it("5: puts a pod with peers in the peers' zone", async () => {
    const peersHome = await gpuNode({ instanceType: 'g5.12xlarge', zone: 'us-east-1b' });
    const sameZone = await gpuNode({ instanceType: 'g5.12xlarge', zone: 'us-east-1b' });
    await gpuNode({ instanceType: 'g5.12xlarge', zone: 'us-east-1a' });
    await gpuNode({ instanceType: 'g5.12xlarge', zone: 'us-east-1c' });
    // The peers fill their node, so the best the extender can do is their zone.
    for (let i = 0; i < 4; i++) {
      await createPod({ name: `trainer-${i}`, gpus: 1, nodeName: peersHome.name, labels: { app: 'trainer', job: 'j1' } });
    }
    await settle();

    await createPod({
      name: 'trainer-client',
      gpus: 1,
      annotations: { 'gpu.nvidia.com/peer-selector': 'app=trainer,job=j1' },
    });
    expect(await scheduledNode('trainer-client')).toBe(sameZone.name);
  });
});
