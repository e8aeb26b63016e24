// The extender's score composes with kube-scheduler's own, through
// the real kube-scheduler running the deployed gpu-scheduler profile and the
// deployed extender weight (cdk/app-config defaults). A pod's own preferred
// node affinity, preferred inter-pod affinity and topology spread outweigh a
// small difference in our score; without them, our ranking decides — small
// and large differences alike. The arithmetic: docs/extender.md, "How our
// score adds to kube-scheduler's".
import type { V1Affinity, V1Pod, V1TopologySpreadConstraint } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { e2eHarness } from './support/e2e-context';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { markPodRunning, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { waitForExtenderToCatchUp } from '../../local/extender-host/extender-snapshot';
import type { Extender } from '../../lambdas/extender/extender-handler';

const harness = e2eHarness();
const { core } = harness;

// Set before the handler module loads its configuration (see beforeAll).
const CACHE_TTL_MS = 1_000;
process.env.EXTENDER_CACHE_TTL = `${CACHE_TTL_MS}ms`;


/** The extender's last answer per pod, so each case can show our ranking really pointed the other way. */
const scoresByPod = new Map<string, Map<string, number>>();

let adapter: AlbAdapter;
let extender: Extender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const created: GpuNode[] = [];

beforeAll(async () => {
  const { albHandlerOf, createExtender } = await import('../../lambdas/extender/extender-handler');
  // The extender reads its cluster view (nodes, bound pods) with its own least-privilege identity.
  extender = createExtender(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  const handler = albHandlerOf(extender);
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const result = await handler(event, context);
      if (event.path === '/prioritize' && event.body && result.statusCode === 200 && result.body) {
        const pod = (JSON.parse(event.body) as { Pod?: { metadata?: { name?: string } } }).Pod?.metadata?.name ?? '?';
        const list = JSON.parse(result.body) as { Host: string; Score: number }[];
        scoresByPod.set(pod, new Map(list.map((h) => [h.Host, h.Score])));
      }
      return result;
    },
  });
  namespace = await harness.createNamespace('composition');
  // Our scores depend on every bound pod (the fragmentation model learns the typical pod shapes).
  await harness.resetCluster();
  await adapter.start();
  // What the deployed second scheduler gets (NodeNames, weight, ignorable, timeout, preempt).
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));
});

afterAll(async () => {
  await scheduler?.stop();
  await adapter?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace });
});

afterEach(async () => {
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  for (const service of (await core.listNamespacedService({ namespace })).items) {
    if (service.metadata?.name) await core.deleteNamespacedService({ namespace, name: service.metadata.name });
  }
  while (created.length > 0) {
    const node = created.pop();
    if (node) await deleteGpuNode(harness.nodeClients, node);
  }
  await waitFor('the previous case to be cleaned up', async () =>
    (await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined,
  );
});

interface PodSpec {
  name: string;
  /** 0: a pod without GPUs (a peer or a replica that only marks a place). */
  gpus: number;
  labels?: Record<string, string>;
  affinity?: V1Affinity;
  topologySpreadConstraints?: V1TopologySpreadConstraint[];
  /** Bound directly (already running there), bypassing the scheduler. */
  nodeName?: string;
}

async function createPod(spec: PodSpec): Promise<void> {
  const body: V1Pod = {
    metadata: { name: spec.name, labels: spec.labels ?? {} },
    spec: {
      ...(spec.nodeName ? { nodeName: spec.nodeName } : { schedulerName: GPU_SCHEDULER_NAME }),
      ...(spec.affinity ? { affinity: spec.affinity } : {}),
      ...(spec.topologySpreadConstraints ? { topologySpreadConstraints: spec.topologySpreadConstraints } : {}),
      containers: [{ name: 'main', image: 'cuda', resources: spec.gpus > 0 ? { limits: { 'nvidia.com/gpu': String(spec.gpus) } } : {} }],
    },
  };
  await core.createNamespacedPod({ namespace, body });
  if (spec.nodeName) await markPodRunning(core, { namespace, name: spec.name });
}

/** A 4×A10G node (g5.12xlarge) with the labeler's labels and the reconciler's utilization annotation. */
async function gpuNode(zone: string, utilization: number): Promise<GpuNode> {
  const facts = await describeInstanceType(harness.ec2, 'g5.12xlarge');
  const node = await createGpuNode(harness.nodeClients, {
    instanceType: 'g5.12xlarge',
    zone,
    labels: seedGpuLabels(facts),
    annotations: { 'gpu.nvidia.com/utilization': String(utilization) },
  });
  created.push(node);
  return node;
}

/**
 * Two empty, otherwise identical nodes our score ranks slightly differently:
 * only utilization differs (10 % vs 60 %), 1.9 points of the profile's 0..100
 * mean at the default weights, which toExtenderScores turns into 10 vs 8 —
 * 40 scheduler points at weight 2.
 */
async function slightlyDifferentNodes(): Promise<{ cool: GpuNode; warm: GpuNode }> {
  return { cool: await gpuNode('us-east-1a', 10), warm: await gpuNode('us-east-1b', 60) };
}

/** Lets the extender's cluster snapshot catch up with the nodes and pods created just now. */
const settle = (): Promise<void> => waitForExtenderToCatchUp(extender ?? fail(), core, namespace);

function fail(): never {
  throw new Error('setup did not finish');
}

async function scheduledNode(name: string): Promise<string> {
  return waitForPodScheduled(core, { namespace, name }, 90_000);
}

/** Our scores for the pod, by node; fails if the extender never scored it. */
function ourScores(pod: string): Map<string, number> {
  const scores = scoresByPod.get(pod);
  if (!scores) throw new Error(`the extender never prioritized ${pod}`);
  return scores;
}

/**
 * Our ranking put `ahead` first by a small margin: one or two levels (20–40
 * points at weight 2), less than a pod's own preference is worth (200).
 */
function expectSmallLead(pod: string, ahead: GpuNode, behind: GpuNode): void {
  const scores = ourScores(pod);
  const detail = JSON.stringify([...scores]);
  expect(scores.get(ahead.name), detail).toBe(10);
  expect(scores.get(behind.name), detail).toBeGreaterThanOrEqual(8);
  expect(scores.get(behind.name), detail).toBeLessThan(10);
}

/** Our ranking put `ahead` first by at least five levels (100 points at weight 2). */
function expectLargeLead(pod: string, ahead: GpuNode, behind: GpuNode): void {
  const scores = ourScores(pod);
  const detail = JSON.stringify([...scores]);
  expect(scores.get(ahead.name), detail).toBe(10);
  expect(scores.get(behind.name), detail).toBeLessThanOrEqual(5);
}

/** A preferred node affinity for exactly this node. */
const prefersNode = (node: GpuNode): V1Affinity => ({
  nodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 50, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node.name] }] } },
    ],
  },
});

describe('score composition through the real kube-scheduler (deployed profile and weight)', () => {
  it('1: a preferred node affinity for the node we rank slightly lower wins', async () => {
    const { cool, warm } = await slightlyDifferentNodes();
    await settle();
    await createPod({ name: 'prefers-warm', gpus: 1, affinity: prefersNode(warm) });
    expect(await scheduledNode('prefers-warm')).toBe(warm.name);
    // Our ranking did point at the other node, by a small margin.
    expectSmallLead('prefers-warm', cool, warm);
  });

  it('1b: a preferred inter-pod affinity for a pod on the node we rank slightly lower wins', async () => {
    const { cool, warm } = await slightlyDifferentNodes();
    await createPod({ name: 'cache', gpus: 0, labels: { role: 'cache' }, nodeName: warm.name });
    await settle();
    await createPod({
      name: 'near-cache',
      gpus: 1,
      affinity: {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { role: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } },
          ],
        },
      },
    });
    expect(await scheduledNode('near-cache')).toBe(warm.name);
    expectSmallLead('near-cache', cool, warm);
  });

  it('2: with no preference, the same small difference decides', async () => {
    const { cool, warm } = await slightlyDifferentNodes();
    await settle();
    await createPod({ name: 'no-preference', gpus: 1 });
    expect(await scheduledNode('no-preference')).toBe(cool.name);
    expectSmallLead('no-preference', cool, warm);
  });

  it("3: the pod's own topology spread constraint (ScheduleAnyway) wins over a small difference", async () => {
    const { cool, warm } = await slightlyDifferentNodes();
    await createPod({ name: 'web-0', gpus: 0, labels: { app: 'web' }, nodeName: cool.name });
    await settle();
    await createPod({
      name: 'web-1',
      gpus: 1,
      labels: { app: 'web' },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
      ],
    });
    expect(await scheduledNode('web-1')).toBe(warm.name);
    expectSmallLead('web-1', cool, warm);
  });

  /**
   * The workload runs 3- and 4-GPU jobs (one of each bound): a single GPU on the
   * exact-fit node (1 free) uses the GPU no job can; on the roomy node (4 free) it
   * leaves 3, which strand for the 4-GPU jobs (FGD's view; the filled-node view,
   * which fills one device at a time, has no one-GPU shape to say otherwise).
   */
  async function exactAndRoomy(): Promise<{ exact: GpuNode; roomy: GpuNode }> {
    // The exact-fit node is busy (90 %), the other idle: utilization pulls the wrong way.
    const exact = await gpuNode('us-east-1a', 90);
    const roomy = await gpuNode('us-east-1b', 0);
    const full = await gpuNode('us-east-1c', 50);
    await createPod({ name: 'occupant', gpus: 3, nodeName: exact.name });
    await createPod({ name: 'whole-job', gpus: 4, nodeName: full.name });
    await settle();
    return { exact, roomy };
  }

  it('4: with no preference, a large difference decides even against utilization (exact fit vs fragmenting)', async () => {
    const { exact, roomy } = await exactAndRoomy();
    await createPod({ name: 'single', gpus: 1 });
    expect(await scheduledNode('single')).toBe(exact.name);
    expectLargeLead('single', exact, roomy);
  });

  it("4b: the pod's own full preference still wins over that large difference (our whole range is 180 < 200)", async () => {
    const { exact, roomy } = await exactAndRoomy();
    await createPod({ name: 'prefers-roomy', gpus: 1, affinity: prefersNode(roomy) });
    expect(await scheduledNode('prefers-roomy')).toBe(roomy.name);
    expectLargeLead('prefers-roomy', exact, roomy);
  });

  it("5: a Service's replicas are not spread by kube-scheduler's default constraints: our ranking decides", async () => {
    // With the system defaults (hostname maxSkew 3, zone maxSkew 5) the empty
    // node in the other zone would lead by 68 points, more than our 40.
    const { cool, warm } = await slightlyDifferentNodes();
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'inference' }, spec: { selector: { app: 'inference' }, ports: [{ port: 80 }] } },
    });
    // The pod the Service already selects holds no GPU, so the two nodes stay
    // alike for our score (only utilization differs) while the default
    // constraints would count it on the cool node and its zone.
    await createPod({ name: 'inference-0', gpus: 0, labels: { app: 'inference' }, nodeName: cool.name });
    await settle();
    await createPod({ name: 'inference-1', gpus: 1, labels: { app: 'inference' } });
    expect(await scheduledNode('inference-1')).toBe(cool.name);
    expectSmallLead('inference-1', cool, warm);
  });
});
