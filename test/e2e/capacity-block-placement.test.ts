// Reserved first, Capacity Blocks respected, end to end: the real
// kube-scheduler (profile gpu-scheduler) calls the extender handler behind the
// local ALB adapter. Two equal A10G nodes: one in a Capacity Block that ends
// in 3 hours (Karpenter's reservation labels and the end our labeler writes),
// one on-demand. A 30-minute job fits the block and goes there (reserved
// first); a 6-hour job would outlive it and goes on-demand, though packing
// and the reservation both pull it to the block.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { waitForExtenderToCatchUp } from '../../local/extender-host/extender-snapshot';
import { e2eHarness } from './support/e2e-context';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import type { Extender } from '../../lambdas/extender/extender-handler';
import { CAPACITY_LABEL, KARPENTER_CAPACITY_LABEL, POD_ANNOTATION } from '../../lambdas/scheduling/keys';

const harness = e2eHarness();
const { core } = harness;

// Set before the handler module loads its config.
process.env.EXTENDER_CACHE_TTL = '1000ms';

const HOUR_MS = 3_600_000;
let adapter: AlbAdapter | undefined;
let extender: Extender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const nodes: GpuNode[] = [];
let block: GpuNode;
let onDemand: GpuNode;
/** The block's end, whole Unix seconds, as the labeler writes it. */
let blockEndSeconds = 0;
const scoresByPod = new Map<string, Record<string, number>>();

async function a10gNode(labels: Record<string, string>): Promise<GpuNode> {
  const facts = await describeInstanceType(harness.ec2, 'g5.12xlarge');
  const node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', labels: { ...seedGpuLabels(facts), ...labels } });
  nodes.push(node);
  return node;
}

function job(name: string, runtime: string, nodeName?: string): V1Pod {
  return {
    metadata: { name, annotations: { [POD_ANNOTATION.expectedRuntime]: runtime } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      ...(nodeName === undefined ? {} : { nodeSelector: { 'kubernetes.io/hostname': nodeName } }),
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

beforeAll(async () => {
  const { albHandlerOf, createExtender } = await import('../../lambdas/extender/extender-handler');
  extender = createExtender(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  const handler = albHandlerOf(extender);
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const result = await handler(event, context);
      // The extender's scores, to show the block won on points and not by a tie-break.
      if (event.path === '/prioritize' && event.body && result.statusCode === 200 && result.body) {
        const pod = (JSON.parse(event.body) as { Pod?: { metadata?: { name?: string } } }).Pod?.metadata?.name ?? '?';
        scoresByPod.set(pod, Object.fromEntries((JSON.parse(result.body) as { Host: string; Score: number }[]).map((s) => [s.Host, s.Score])));
      }
      return result;
    },
  });
  namespace = await harness.createNamespace('capacity-block');
  // Only this file's nodes: the preference is between these two.
  await harness.resetCluster();
  // The on-demand node first: any tie-break by order would favour it.
  onDemand = await a10gNode({ [KARPENTER_CAPACITY_LABEL.capacityType]: 'on-demand' });
  blockEndSeconds = Math.floor((Date.now() + 3 * HOUR_MS) / 1000);
  block = await a10gNode({
    [KARPENTER_CAPACITY_LABEL.capacityType]: 'reserved',
    [KARPENTER_CAPACITY_LABEL.reservationType]: 'capacity-block',
    [KARPENTER_CAPACITY_LABEL.reservationId]: 'cr-0b10c000000000042',
    [CAPACITY_LABEL.reservationEnd]: String(blockEndSeconds),
  });
  await adapter.start();
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));
  await waitForExtenderToCatchUp(extender, core, namespace);
});

afterAll(async () => {
  await scheduler?.stop();
  await adapter?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  for (const node of nodes) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
});

describe('Capacity Block placement by the real kube-scheduler', () => {
  it('places a 30-minute job on the block that ends in 3 hours, and a 6-hour job on on-demand', async () => {
    await core.createNamespacedPod({ namespace, body: job('thirty-minutes', '30m') });
    expect(await waitForPodScheduled(core, { namespace, name: 'thirty-minutes' }, 90_000)).toBe(block.name);
    const scores = scoresByPod.get('thirty-minutes') ?? {};
    expect(scores[block.name]).toBeGreaterThan(scores[onDemand.name] ?? Number.POSITIVE_INFINITY);

    // The block now also packs better (one GPU taken): only the runtime rule keeps the long job off it.
    await waitForExtenderToCatchUp(extender ?? fail(), core, namespace);
    await core.createNamespacedPod({ namespace, body: job('six-hours', '6h') });
    expect(await waitForPodScheduled(core, { namespace, name: 'six-hours' }, 90_000)).toBe(onDemand.name);
  });

  it('keeps a 6-hour job pinned to the block pending, with a reason that names the end', async () => {
    await core.createNamespacedPod({ namespace, body: job('pinned-six-hours', '6h', block.name) });
    const event = await waitForPodEvent(core, { namespace, name: 'pinned-six-hours' }, (e) => e.reason === 'FailedScheduling', 90_000);
    const end = new Date(blockEndSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(event.message).toContain(`Capacity Block ends too soon: the node's Capacity Block ends ${end}`);
    expect(event.message).toContain("before the pod's expected runtime of 6h and the 40m drain margin have passed");
    const pod = await core.readNamespacedPod({ namespace, name: 'pinned-six-hours' });
    expect(pod.spec?.nodeName ?? '').toBe('');
  });
});

function fail(): never {
  throw new Error('setup did not finish');
}
