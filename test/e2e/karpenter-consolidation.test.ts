// Scale-down that keeps the valuable pods: real Karpenter (kwok provider)
// consolidates one of two underused GPU nodes of one price, and the real
// reconciler Lambda (CloudWatch metrics in moto) decides which. One node runs
// a busy pod (many requests, a warm cache, fast answers), the other two idle
// ones, all opted in to deletion costs. The reconciler writes the deletion
// cost and Karpenter's copy scaled to its band (karpenter.sh/disruption-cost);
// then consolidation is turned on, and Karpenter must take the idle pods'
// node. The control runs the same with the copy turned off: Karpenter reads
// pod-deletion-cost as 1 + cost / 2^27 per pod, so it counts pods, not how
// busy they are, and takes the busy pod's node, the one with fewer pods.
// A last case turns that around with GPU health: when the busy pod's node
// has GPU warnings (the node monitoring agent's events), the reconciler gives
// its pod the lowest cost and Karpenter consolidates that node first.
import type { V1Deployment } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KARPENTER_DISRUPTION_COST_ANNOTATION } from '../../lambdas/reconciler/karpenter-disruption-cost';
import { POD_DELETION_COST_ANNOTATION } from '../../lambdas/reconciler/pod-view';
import { NODE_LABEL } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { KARPENTER_CONSOLIDATION_TIMEOUT_MS, waitForKarpenterToRemove, wrongPickReport } from './support/karpenter-disruption';
import { agentWarning } from './support/node-monitoring-agent';
import type { Karpenter } from '../../local/addons/karpenter';
import type { ManagedProcess } from '../../local/common/managed-process';
import { finishTerminatingPods, markPodRunning } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import type { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { emfValues } from './emf-records';
import { cloudWatch, OPT_IN, PAUSE_IMAGE, publishPodMetrics, reconcilerEnv, startReconcilerLambda, type AppMetrics } from './reconciler-fixtures';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, apps } = harness;
const logDir = mkdtempSync(join(tmpdir(), 'karpenter-consolidation-'));

const GPU_TAINT = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };
const BUSY: AppMetrics = { activeRequests: 80, cacheHitRate: 0.95, avgResponseTimeMs: 40 };
const IDLE: AppMetrics = { activeRequests: 0, cacheHitRate: 0, avgResponseTimeMs: 2000 };
/** Karpenter's consolidation at its slowest, and the rest of a case (two launches, the reconciler, the rebinding) at its. */
const CASE_TIMEOUT_MS = KARPENTER_CONSOLIDATION_TIMEOUT_MS + 240_000;
/** Ready this long ago: past the reconciler's warm-up. */
const READY_AGO_MS = 3_600_000;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let karpenter: Karpenter | undefined;
const reconcilers = new Map<boolean, LocalLambda>();
/** Every EMF and log record the reconcilers wrote, newest last. */
const records: Record<string, unknown>[] = [];
let namespace = '';
let podKubelet: ReturnType<typeof setInterval> | undefined;

/** The reconciler as deployed (KARPENTER_DISRUPTION_COST on by default), or with Karpenter's copy turned off. */
async function reconcilerLambda(scaled: boolean): Promise<LocalLambda> {
  const running = reconcilers.get(scaled);
  if (running) return running;
  const lambda = await startReconcilerLambda(harness.info, {
    functionName: `consolidation-reconciler-${scaled ? 'scaled' : 'control'}`,
    environment: reconcilerEnv(harness.info, namespace, {
      NODE_UTILIZATION_ENABLED: 'false',
      // Karpenter's nodes: their GPUs are what the outcome counts.
      NODE_SELECTOR: 'karpenter.sh/nodepool',
      ...(scaled ? {} : { KARPENTER_DISRUPTION_COST: 'false' }),
    }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
  reconcilers.set(scaled, lambda);
  return lambda;
}

/** A Deployment of one-GPU pods, opted in to deletion costs. */
function deployment(name: string, replicas: number): V1Deployment {
  const labels = { app: name, ...OPT_IN };
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          schedulerName: GPU_SCHEDULER_NAME,
          tolerations: [{ key: GPU_TAINT.key, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
        },
      },
    },
  };
}

async function podNames(app: string): Promise<string[]> {
  const pods = await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.name ?? '');
}

/** The app's pods once all bound to one node, marked Running and Ready an hour ago (no kubelet here); that node. */
async function launch(app: string, replicas: number): Promise<string> {
  await apps.createNamespacedDeployment({ namespace, body: deployment(app, replicas) });
  const pods = await waitFor(`the ${app} pods bound`, async () => {
    const listed = (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
    return listed.length === replicas && listed.every((p) => p.spec?.nodeName) ? listed : undefined;
  }, { timeoutMs: 120_000 });
  for (const [i, pod] of pods.entries()) await markPodRunning(core, { namespace, name: pod.metadata?.name ?? '' }, `10.2.0.${10 + i}`, new Date(Date.now() - READY_AGO_MS));
  const nodes = new Set(pods.map((p) => p.spec?.nodeName ?? ''));
  expect(nodes.size, `${app} pods on one node`).toBe(1);
  return [...nodes][0] ?? '';
}

/** A taint no pod here tolerates: Karpenter, which plans with taints (not with cordons), then launches another node. */
const HOLD = { key: 'e2e.gpu-scheduling/hold', value: 'true', effect: 'NoSchedule' };

async function hold(name: string, held: boolean): Promise<void> {
  const taints = ((await core.readNode({ name })).spec?.taints ?? []).filter((t) => t.key !== HOLD.key);
  await core.patchNode({ name, body: { spec: { taints: held ? [...taints, HOLD] : taints } } }, MERGE_PATCH_OPTIONS);
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('karpenter-consolidation');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  karpenter = await harness.startKarpenter({
    // One type (4 A10G): two half-empty nodes of one price, and no other type a multi-node move could pick.
    instanceTypes: [{ instanceType: 'g5.12xlarge' }],
    nodePool: { taints: [GPU_TAINT] },
  });
  // The kubelet's part of an eviction: a pod Karpenter drains is gone once it is terminating.
  podKubelet = setInterval(() => void finishTerminatingPods(core, namespace).catch(() => undefined), 500);
}, 180_000);

afterEach(async () => {
  // A clean slate for the next case: no pods, so Karpenter removes the nodes as empty.
  if (!karpenter) return;
  await karpenter.startConsolidation({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '0s' });
  const deployments = await apps.listNamespacedDeployment({ namespace });
  for (const item of deployments.items) await apps.deleteNamespacedDeployment({ namespace, name: item.metadata?.name ?? '' });
  await waitFor('the pool to be empty', async () => (((await karpenter?.listNodes()) ?? []).length === 0 ? true : undefined), { timeoutMs: 120_000, intervalMs: 500 });
}, 150_000);

afterAll(async () => {
  if (podKubelet) clearInterval(podKubelet);
  if (karpenter) console.log(`--- Karpenter log tail ---\n${karpenter.logTail(30)}`);
  for (const lambda of reconcilers.values()) await lambda.stop();
  await karpenter?.stop();
  await harness.tearDown(namespace, scheduler, extender);
  rmSync(logDir, { recursive: true, force: true });
}, 120_000);

describe('Karpenter consolidates the node whose pods the reconciler found idle', () => {
  it.each([
    { scaled: true, consolidated: 'idle' as const },
    // The control: the same costs as pod-deletion-cost alone, which Karpenter reads as 1 + cost / 2^27 per pod.
    { scaled: false, consolidated: 'busy' as const },
  ])('with karpenter.sh/disruption-cost written: $scaled; the $consolidated pods\' node goes', async ({ scaled, consolidated }) => {
    if (!karpenter) throw new Error('setup failed');
    const lambda = await reconcilerLambda(scaled);
    const [busyApp, idleApp] = scaled ? ['busy', 'idle'] : ['busy-control', 'idle-control'];
    await karpenter.setDisruption({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 'Never' });

    // Two nodes: one busy pod on the first; the first held by a taint while the two idle pods wait, so Karpenter launches another.
    const busyNode = await launch(busyApp, 1);
    await hold(busyNode, true);
    const idleNode = await launch(idleApp, 2);
    await hold(busyNode, false);
    expect(idleNode).not.toBe(busyNode);

    const busyPods = await podNames(busyApp);
    const idlePods = await podNames(idleApp);
    expect([busyPods.length, idlePods.length]).toEqual([1, 2]);
    await publishPodMetrics(
      cloudWatch(harness.info),
      namespace,
      new Map([...busyPods.map((pod): [string, AppMetrics] => [pod, BUSY]), ...idlePods.map((pod): [string, AppMetrics] => [pod, IDLE])]),
    );
    await lambda.invoke({ id: `consolidation-${busyApp}`, time: new Date().toISOString() });
    const annotations = async (name: string) => (await core.readNamespacedPod({ namespace, name })).metadata?.annotations ?? {};
    const busyCost = await annotations(busyPods[0] ?? '');
    for (const pod of idlePods) expect(Number(busyCost[POD_DELETION_COST_ANNOTATION])).toBeGreaterThan(Number((await annotations(pod))[POD_DELETION_COST_ANNOTATION] ?? '0'));
    if (scaled) {
      // To Karpenter the busy pod is 1 + value / 2^27 >= 4: its node costs more to disrupt (>= 5) than two idle pods' (1 + 1 + 1 = 3).
      expect(Number(busyCost[KARPENTER_DISRUPTION_COST_ANNOTATION]) / 2 ** 27).toBeGreaterThanOrEqual(3);
    } else {
      // Without the copy, 1 + ~0 per pod: the node with fewer pods (the busy one) looks cheaper to disrupt.
      expect(busyCost[KARPENTER_DISRUPTION_COST_ANNOTATION]).toBeUndefined();
    }

    await karpenter.startConsolidation({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' });
    const left = await waitForKarpenterToRemove(core, karpenter, [busyNode, idleNode]);
    const [gone, kept] = consolidated === 'idle' ? [idleNode, busyNode] : [busyNode, idleNode];
    // Karpenter's own account (NodeClaims, its events and disruption log) names why, if it took another node.
    const why = await wrongPickReport(core, karpenter, { kept, gone }, left);
    expect(left, why).toContain(kept);
    expect(left, why).not.toContain(gone);
    // The moved pods' replacements run on the node that was kept.
    const movedApp = consolidated === 'idle' ? idleApp : busyApp;
    await waitFor(`the ${movedApp} pods bound again`, async () => {
      const pods = (await core.listNamespacedPod({ namespace, labelSelector: `app=${movedApp}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
      return pods.length > 0 && pods.every((p) => p.spec?.nodeName === kept) ? true : undefined;
    }, { timeoutMs: 60_000 });

    // The vanished node raises nothing: the extender answered every call, and the next reconciler run counts one node, no error.
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
    const before = records.length;
    await lambda.invoke({ id: `after-consolidation-${busyApp}`, time: new Date().toISOString() });
    const run = await waitFor('the run\'s outcome metrics', async () => {
      const written = records.slice(before);
      return emfValues(written, 'GpusAllocatable').length > 0 ? written : undefined;
    });
    expect(emfValues(run, 'GpusAllocatable').map((v) => v.value)).toEqual([4]);
    expect(emfValues(run, 'GpusAllocated').map((v) => v.value)).toEqual([3]);
    expect(emfValues(run, 'ReconcilerErrors')).toEqual([]);
  }, CASE_TIMEOUT_MS);
});

describe('Karpenter consolidates the degraded node first, busy pods and all', () => {
  it('a busy pod on a node with GPU warnings goes before an idle pod on a healthy node', async () => {
    if (!karpenter) throw new Error('setup failed');
    const lambda = await reconcilerLambda(true);
    await karpenter.setDisruption({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 'Never' });
    // As in the first case, one busy pod on one node and an idle one on another: without health, the idle pod's node goes.
    const sickNode = await launch('busy-sick', 1);
    await hold(sickNode, true);
    const healthyNode = await launch('idle-healthy', 1);
    await hold(sickNode, false);
    expect(healthyNode).not.toBe(sickNode);
    const [busyPod] = await podNames('busy-sick');
    const [idlePod] = await podNames('idle-healthy');
    await publishPodMetrics(cloudWatch(harness.info), namespace, new Map([[busyPod ?? '', BUSY], [idlePod ?? '', IDLE]]));

    // The node monitoring agent's warning about the busy pod's node: a Warning event about the Node, in default.
    await core.createNamespacedEvent({ namespace: 'default', body: agentWarning(sickNode, 'NvidiaXID13Warning: Graphics SM Warp Exception') });
    try {
      await lambda.invoke({ id: 'consolidation-degraded', time: new Date().toISOString() });
      const annotations = async (name: string) => (await core.readNamespacedPod({ namespace, name })).metadata?.annotations ?? {};
      const busy = await waitFor('the busy pod on the degraded node to cost least', async () => {
        const read = await annotations(busyPod ?? '');
        return read[POD_DELETION_COST_ANNOTATION] === '-100' ? read : undefined;
      });
      const idle = await annotations(idlePod ?? '');
      // To Karpenter: the degraded node 1 + 0.2, the healthy one 1 + 1.
      expect(Number(busy[KARPENTER_DISRUPTION_COST_ANNOTATION])).toBeLessThan(Number(idle[KARPENTER_DISRUPTION_COST_ANNOTATION] ?? '0'));
      expect((await core.readNode({ name: sickNode })).metadata?.labels?.[NODE_LABEL.gpuHealth]).toBe('degraded');

      await karpenter.startConsolidation({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' });
      const left = await waitForKarpenterToRemove(core, karpenter, [sickNode, healthyNode]);
      const why = await wrongPickReport(core, karpenter, { kept: healthyNode, gone: sickNode }, left);
      expect(left, why).toContain(healthyNode);
      expect(left, why).not.toContain(sickNode);
      await waitFor('the busy pod bound again, on the healthy node', async () => {
        const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=busy-sick' })).items.filter((p) => !p.metadata?.deletionTimestamp);
        return pods.length === 1 && pods[0]?.spec?.nodeName === healthyNode ? true : undefined;
      }, { timeoutMs: 60_000 });
    } finally {
      await core.deleteCollectionNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${sickNode}` }).catch(() => undefined);
    }
  }, CASE_TIMEOUT_MS);
});
