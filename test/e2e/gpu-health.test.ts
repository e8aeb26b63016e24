// GPU health with the real kube-scheduler, the extender and the reconciler
// as deployed: a node whose AcceleratedHardwareReady the node monitoring
// agent turns False gets no GPU pod, and the pod's FailedScheduling event
// names the fault; once True again it takes the pod. The agent's warning
// events make the reconciler label the node degraded, placement moves to the
// healthy node although packing would prefer the busy one (yet the degraded
// node still takes a pod that fits nowhere else), and the opted-in pod on the
// degraded node gets the lowest deletion cost, so the ReplicaSet's
// scale-down takes it first. Conditions are written through the status subresource and
// events in the agent's shape (source eks-node-monitoring-agent, type
// Warning, reason the condition type, message `<Reason>: <detail>`).
import type { V1Pod } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';
import { KARPENTER_DISRUPTION_COST_ANNOTATION } from '../../lambdas/reconciler/karpenter-disruption-cost';
import { NODE_ANNOTATION, NODE_LABEL } from '../../lambdas/scheduling/keys';
import type { NodeHealth } from '../../lambdas/scheduling/node-health';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitFor } from '../../local/common/wait';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { markPodRunning, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import type { LocalLambda } from '../../local/start/local-lambda';
import { emfValues } from './emf-records';
import { deletionCost, OPT_IN, PAUSE_IMAGE, reconcilerEnv, startReconcilerLambda, reconcileOnce } from './reconciler-fixtures';
import { e2eHarness } from './support/e2e-context';
import { agentWarning } from './support/node-monitoring-agent';

const h = e2eHarness();
const { core } = h;
const logDir = mkdtempSync(join(tmpdir(), 'gpu-health-'));
const records: Record<string, unknown>[] = [];
const CACHE_TTL_MS = 1_000;
let namespace = '';
const nodes: GpuNode[] = [];
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let reconciler: LocalLambda | undefined;

const XID79 = { reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus' };

/** The node's conditions as the kubelet and the node monitoring agent leave them (a merge patch of status replaces the list). */
async function setGpuCondition(node: string, status: 'True' | 'False', fault = XID79): Promise<void> {
  const now = new Date().toISOString();
  const gpu = status === 'True' ? { reason: 'NvidiaGPUIsReady', message: 'GPUs are healthy' } : fault;
  await core.patchNodeStatus(
    {
      name: node,
      body: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'local harness node', lastHeartbeatTime: now, lastTransitionTime: now },
            { type: 'AcceleratedHardwareReady', status, ...gpu, lastHeartbeatTime: now, lastTransitionTime: now },
          ],
        },
      },
    },
    MERGE_PATCH_OPTIONS,
  );
}

function gpuPod(name: string, nodeName?: string): V1Pod {
  return {
    metadata: { name, labels: { ...OPT_IN, app: name } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      ...(nodeName ? { nodeSelector: { 'kubernetes.io/hostname': nodeName } } : {}),
      containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

/** Refreshes the extender's cluster cache until it shows what `holds` checks of the node (its health as the library reads it). */
function extenderSees(describe: string, node: string, holds: (health: NodeHealth) => boolean): Promise<void> {
  if (!extender) throw new Error('setup failed: no extender');
  return extender.waitForSnapshot(describe, (snapshot) => {
    const info = snapshot.getNode(node);
    return info !== undefined && holds(info.health);
  });
}

/** One reconciler run: its records once it logged its end. */
const reconcile = (id: string) => reconcileOnce(reconciler, () => records, id);

beforeAll(async () => {
  namespace = await h.createNamespace('gpu-health');
  for (const suffix of ['a', 'b']) {
    nodes.push(await createGpuNode(h.nodeClients, { instanceType: 'g5.12xlarge', name: `${namespace}-${suffix}`, seedLabels: true, labels: { 'gpu-health-e2e': namespace } }));
  }
  extender = await startRecordingExtender(h.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: `${CACHE_TTL_MS / 1000}s` });
  scheduler = await h.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  reconciler = await startReconcilerLambda(h.info, {
    functionName: 'gpu-health-reconciler',
    environment: reconcilerEnv(h.info, namespace, { NODE_SELECTOR: `gpu-health-e2e=${namespace}`, NODE_UTILIZATION_ENABLED: 'false' }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
}, 120_000);

afterAll(async () => {
  await reconciler?.stop();
  for (const node of nodes) {
    await core.deleteCollectionNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node.name}` }).catch(() => undefined);
    await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
  }
  await h.tearDown(namespace, scheduler, extender);
  rmSync(logDir, { recursive: true, force: true });
}, 120_000);

describe('GPU health in placement and scale-down', () => {
  it('refuses a failing node naming the fault, takes it back once healthy, avoids a degraded one and drains it first', async () => {
    const [sick, healthy] = nodes;
    if (!sick || !healthy) throw new Error('setup failed');

    // Failing: the pod pinned to the sick node waits, and its event names the condition, reason and message.
    await setGpuCondition(sick.name, 'False');
    await extenderSees(`see ${sick.name} failing`, sick.name, (health) => health.failing !== undefined);
    await core.createNamespacedPod({ namespace, body: gpuPod('pinned', sick.name) });
    const refused = await waitForPodEvent(core, { namespace, name: 'pinned' }, (e) => e.reason === 'FailedScheduling', 90_000);
    expect(refused.message).toContain('AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)');
    expect((await core.readNamespacedPod({ namespace, name: 'pinned' })).spec?.nodeName ?? '').toBe('');

    const failing = await reconcile('failing');
    expect(emfValues(failing, 'GpuNodesFailing').map((v) => v.value)).toEqual([1]);
    expect(emfValues(failing, 'GpusUnhealthy').map((v) => v.value)).toEqual([4]);

    // Repaired: a pod for the node binds there. (The waiting one would too, but only once kube-scheduler
    // retries it: a condition change is no event its in-tree NodeAffinity requeues a pod for, so that
    // takes up to its 5-minute flush of unschedulable pods.)
    await setGpuCondition(sick.name, 'True');
    await core.deleteNamespacedPod({ namespace, name: 'pinned', gracePeriodSeconds: 0 });
    await extenderSees(`see ${sick.name} repaired`, sick.name, (health) => health.failing === undefined);
    await core.createNamespacedPod({ namespace, body: gpuPod('repaired', sick.name) });
    expect(await waitForPodScheduled(core, { namespace, name: 'repaired' }, 90_000)).toBe(sick.name);
    await markPodRunning(core, { namespace, name: 'repaired' }, '10.7.0.10', new Date(Date.now() - 3_600_000));

    // Warnings: the reconciler labels the node degraded with what and when.
    await core.createNamespacedEvent({ namespace: 'default', body: agentWarning(sick.name, 'NvidiaXID13Warning: Graphics SM Warp Exception') });
    const degraded = await reconcile('degraded');
    const labelled = await core.readNode({ name: sick.name });
    expect(labelled.metadata?.labels?.[NODE_LABEL.gpuHealth]).toBe('degraded');
    expect(labelled.metadata?.annotations?.[NODE_ANNOTATION.gpuHealthReasons]).toMatch(/^NvidiaXID13Warning, last \d{4}-/);
    expect(emfValues(degraded, 'GpusDegraded').map((v) => v.value)).toEqual([4]);
    expect(emfValues(degraded, 'GpuPodsOnDegradedNodes').map((v) => v.value)).toEqual([1]);
    expect((await core.readNode({ name: healthy.name })).metadata?.labels?.[NODE_LABEL.gpuHealth]).toBeUndefined();

    // Placement moves to the healthy node, although packing prefers the node already holding a pod.
    await extenderSees(`see ${sick.name} degraded`, sick.name, (health) => health.degraded.length > 0);
    await core.createNamespacedPod({ namespace, body: gpuPod('free') });
    expect(await waitForPodScheduled(core, { namespace, name: 'free' }, 90_000)).toBe(healthy.name);
    await markPodRunning(core, { namespace, name: 'free' }, '10.7.0.11', new Date(Date.now() - 3_600_000));

    // A ReplicaSet spread one pod per node: the degraded node still takes the pod that fits nowhere else.
    await h.apps.createNamespacedReplicaSet({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { ...OPT_IN, app: 'web' } },
            spec: {
              schedulerName: GPU_SCHEDULER_NAME,
              affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } },
              containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
            },
          },
        },
      },
    });
    const webPods = await waitFor('both web pods bound', async () => {
      const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
      return pods.length === 2 && pods.every((p) => p.spec?.nodeName) ? pods : undefined;
    }, { timeoutMs: 120_000 });
    expect(webPods.map((p) => p.spec?.nodeName).sort()).toEqual([sick.name, healthy.name].sort());
    for (const pod of webPods) await markPodRunning(core, { namespace, name: pod.metadata?.name ?? '' }, '10.7.0.12', new Date(Date.now() - 3_600_000));
    const onSick = webPods.find((p) => p.spec?.nodeName === sick.name)?.metadata?.name ?? '';
    const onHealthy = webPods.find((p) => p.spec?.nodeName === healthy.name)?.metadata?.name ?? '';

    // The pod on the degraded node costs least, for the ReplicaSet controller and for Karpenter.
    const costs = await reconcile('costs');
    const sickPod = await core.readNamespacedPod({ namespace, name: onSick });
    const healthyPod = await core.readNamespacedPod({ namespace, name: onHealthy });
    expect(deletionCost(sickPod)).toBe('-100');
    expect(Number(deletionCost(healthyPod) ?? '0')).toBeGreaterThan(-100);
    expect(Number(sickPod.metadata?.annotations?.[KARPENTER_DISRUPTION_COST_ANNOTATION])).toBeLessThan(Number(healthyPod.metadata?.annotations?.[KARPENTER_DISRUPTION_COST_ANNOTATION] ?? Infinity));
    expect(emfValues(costs, 'ReconcilerErrors')).toEqual([]);

    // Scale-down: the ReplicaSet controller deletes the pod on the degraded node.
    await h.apps.patchNamespacedReplicaSetScale({ namespace, name: 'web', body: { spec: { replicas: 1 } } }, MERGE_PATCH_OPTIONS);
    const left = await waitFor('the ReplicaSet down to one pod', async () => {
      const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items.filter((p) => !p.metadata?.deletionTimestamp);
      return pods.length === 1 ? pods : undefined;
    }, { timeoutMs: 120_000 });
    expect(left.map((p) => p.metadata?.name)).toEqual([onHealthy]);
    expect(extender?.failures).toEqual([]);
  }, 480_000);
});
