// Training pods that consolidation must not interrupt: real Karpenter (kwok
// provider) and the real reconciler Lambda. A training Job's pod opts in with
// gpu.nvidia.com/do-not-disrupt: "true"; the reconciler gives it Karpenter's
// karpenter.sh/do-not-disrupt (and its owner label) once it is bound. A
// second node runs a pod that came with its own karpenter.sh/do-not-disrupt,
// so neither node may be consolidated into the other while the trainer runs:
// Karpenter says so on the trainer's node (DisruptionBlocked, naming the
// pod) and keeps both. Once the trainer has finished, the next reconciler
// run takes its annotation off (and leaves the other pod's alone), and
// Karpenter removes the trainer's node, now empty.
//
// Then, on the node left, the reconciler's split of pending GPU pods: a pod
// Karpenter launches a node for waits for capacity; one it nominates for a
// Ready node it believes fits, and one no instance type fits, wait for a fit.
// These pods name a scheduler that does not run, so they stay pending and
// their PodScheduled=Unschedulable condition is written here as
// kube-scheduler writes it.
import { BatchV1Api, PatchStrategy, setHeaderOptions, type V1Deployment, type V1Job } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KARPENTER_DO_NOT_DISRUPT_ANNOTATION } from '../../lambdas/reconciler/do-not-disrupt';
import { POD_ANNOTATION, POD_LABEL } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { KARPENTER_CONSOLIDATION_TIMEOUT_MS, KARPENTER_EVENT_TIMEOUT_MS, waitForKarpenterToRemove } from './support/karpenter-disruption';
import type { Karpenter } from '../../local/addons/karpenter';
import type { ManagedProcess } from '../../local/common/managed-process';
import { finishTerminatingPods, markPodFinished, markPodRunning } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import type { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { emfValues } from './emf-records';
import { PAUSE_IMAGE, reconcilerEnv, startReconcilerLambda, reconcileOnce } from './reconciler-fixtures';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, apps } = harness;
const batch = harness.kubeConfig.makeApiClient(BatchV1Api);
const logDir = mkdtempSync(join(tmpdir(), 'karpenter-do-not-disrupt-'));

const GPU_TAINT = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };
/** A taint no pod here tolerates: Karpenter then launches a second node for the trainer. */
const HOLD = { key: 'e2e.gpu-scheduling/hold', value: 'true', effect: 'NoSchedule' };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let karpenter: Karpenter | undefined;
let reconciler: LocalLambda | undefined;
const records: Record<string, unknown>[] = [];
let namespace = '';
let podKubelet: ReturnType<typeof setInterval> | undefined;

const podSpec = {
  schedulerName: GPU_SCHEDULER_NAME,
  tolerations: [{ key: GPU_TAINT.key, operator: 'Exists', effect: 'NoSchedule' }],
  containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
};

/** A one-GPU trainer opted in to the reconciler's do-not-disrupt. */
const trainerJob: V1Job = {
  metadata: { name: 'trainer' },
  spec: {
    backoffLimit: 0,
    template: {
      metadata: { labels: { app: 'trainer' }, annotations: { [POD_ANNOTATION.doNotDisrupt]: 'true' } },
      spec: { ...podSpec, restartPolicy: 'Never' },
    },
  },
};

/** A pod that came with its own do-not-disrupt (and the opt-in too: the reconciler must still leave it be). */
const pinned: V1Deployment = {
  metadata: { name: 'pinned' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'pinned' } },
    template: {
      metadata: { labels: { app: 'pinned' }, annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true', [POD_ANNOTATION.doNotDisrupt]: 'true' } },
      spec: podSpec,
    },
  },
};

async function boundPod(app: string): Promise<{ name: string; node: string }> {
  return waitFor(`the ${app} pod bound`, async () => {
    const pod = (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items.find((p) => !p.metadata?.deletionTimestamp && p.spec?.nodeName);
    return pod ? { name: pod.metadata?.name ?? '', node: pod.spec?.nodeName ?? '' } : undefined;
  }, { timeoutMs: 120_000 });
}

async function hold(name: string, held: boolean): Promise<void> {
  const taints = ((await core.readNode({ name })).spec?.taints ?? []).filter((t) => t.key !== HOLD.key);
  await core.patchNode({ name, body: { spec: { taints: held ? [...taints, HOLD] : taints } } }, MERGE_PATCH_OPTIONS);
}

async function podMeta(name: string): Promise<{ annotations: Record<string, string>; labels: Record<string, string> }> {
  const pod = await core.readNamespacedPod({ namespace, name });
  return { annotations: pod.metadata?.annotations ?? {}, labels: pod.metadata?.labels ?? {} };
}

async function karpenterNodeNames(): Promise<string[]> {
  return ((await karpenter?.listNodes()) ?? []).map((n) => n.metadata?.name ?? '');
}

/** One reconciler run: its records once it logged its end. */
const reconcile = (id: string) => reconcileOnce(reconciler, () => records, id);

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('karpenter-do-not-disrupt');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  karpenter = await harness.startKarpenter({ instanceTypes: [{ instanceType: 'g5.12xlarge' }], nodePool: { taints: [GPU_TAINT] } });
  reconciler = await startReconcilerLambda(harness.info, {
    functionName: 'do-not-disrupt-reconciler',
    environment: reconcilerEnv(harness.info, namespace, { NODE_UTILIZATION_ENABLED: 'false', NODE_SELECTOR: 'karpenter.sh/nodepool' }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
  podKubelet = setInterval(() => void finishTerminatingPods(core, namespace).catch(() => undefined), 500);
}, 180_000);

afterAll(async () => {
  if (podKubelet) clearInterval(podKubelet);
  if (karpenter) console.log(`--- Karpenter log tail ---\n${karpenter.logTail(30)}`);
  await reconciler?.stop();
  await batch.deleteNamespacedJob({ namespace, name: 'trainer', propagationPolicy: 'Background' }).catch(() => undefined);
  await karpenter?.stop();
  await harness.tearDown(namespace, scheduler, extender);
  rmSync(logDir, { recursive: true, force: true });
}, 120_000);

describe('an opted-in training pod keeps its node while it runs', () => {
  it('Karpenter is blocked on the trainer\'s node until the pod has finished, then takes the node', async () => {
    if (!karpenter) throw new Error('setup failed');
    await karpenter.setDisruption({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: 'Never' });

    await apps.createNamespacedDeployment({ namespace, body: pinned });
    const pinnedPod = await boundPod('pinned');
    await hold(pinnedPod.node, true);
    await batch.createNamespacedJob({ namespace, body: trainerJob });
    const trainer = await boundPod('trainer');
    await hold(pinnedPod.node, false);
    expect(trainer.node).not.toBe(pinnedPod.node);
    await markPodRunning(core, { namespace, name: pinnedPod.name }, '10.3.0.10');
    await markPodRunning(core, { namespace, name: trainer.name }, '10.3.0.11');

    const first = await reconcile('guard');
    expect(await podMeta(trainer.name)).toMatchObject({
      annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' },
      labels: { [POD_LABEL.doNotDisruptOwner]: 'reconciler' },
    });
    // The pinned pod's own do-not-disrupt is not claimed.
    const pinnedMeta = await podMeta(pinnedPod.name);
    expect(pinnedMeta.annotations[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBe('true');
    expect(pinnedMeta.labels[POD_LABEL.doNotDisruptOwner]).toBeUndefined();
    expect(emfValues(first, 'ReconcilerErrors')).toEqual([]);
    // The capacity numbers of the same run: two g5.12xlarge (Karpenter labels their type) at the table's price, nothing pending.
    expect(emfValues(first, 'GpuNodes').map((v) => v.value)).toEqual([2]);
    expect(emfValues(first, 'GpuNodesHourlyCostUsd').map((v) => v.value)).toEqual([2 * 5.672]);
    expect(emfValues(first, 'GpuPodsWaitingForFit').map((v) => v.value)).toEqual([0]);

    // Each node is 1 GPU of 4: without the annotations either could be emptied into the other.
    await karpenter.startConsolidation({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' });
    const blockedBy = (node: string, pod: string) =>
      waitFor(
        `Karpenter to report ${node} blocked by ${pod}`,
        async () => {
          const events = await core.listEventForAllNamespaces({ fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node},reason=DisruptionBlocked` });
          return events.items.find((e) => (e.message ?? '').includes('do-not-disrupt') && (e.message ?? '').includes(pod));
        },
        { timeoutMs: KARPENTER_EVENT_TIMEOUT_MS, intervalMs: 1_000 },
      );
    const blocked = await blockedBy(trainer.node, trainer.name);
    expect(blocked.message).toContain(KARPENTER_DO_NOT_DISRUPT_ANNOTATION);
    // Karpenter has weighed both nodes and found each blocked (its events): it keeps both, and nothing else would move those pods.
    await blockedBy(pinnedPod.node, pinnedPod.name);
    expect(await karpenterNodeNames()).toEqual(expect.arrayContaining([trainer.node, pinnedPod.node]));

    // The trainer finishes: the next run takes our annotation and label off, and only ours.
    await markPodFinished(core, { namespace, name: trainer.name });
    const second = await reconcile('release');
    const released = await podMeta(trainer.name);
    expect(released.annotations[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBeUndefined();
    expect(released.labels[POD_LABEL.doNotDisruptOwner]).toBeUndefined();
    expect((await podMeta(pinnedPod.name)).annotations[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBe('true');
    const summary = second.find((r) => r.message === 'reconcile finished')?.summary as { doNotDisruptCleared?: number } | undefined;
    expect(summary?.doNotDisruptCleared).toBe(1);
    expect(emfValues(second, 'ReconcilerErrors')).toEqual([]);

    // Karpenter takes the trainer's node (its one pod has finished) and keeps the pinned pod's.
    const left = await waitForKarpenterToRemove(core, karpenter, [trainer.node]);
    expect(left).toEqual([pinnedPod.node]);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
    // Karpenter's removal and both verdicts at their slowest, and the rest (two launches, two runs) at theirs.
  }, KARPENTER_CONSOLIDATION_TIMEOUT_MS + 2 * KARPENTER_EVENT_TIMEOUT_MS + 180_000);

  it('splits pending GPU pods into waiting for capacity (a NodeClaim launched for them) and waiting for a fit', async () => {
    if (!karpenter) throw new Error('setup failed');
    await karpenter.setDisruption({ consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' });
    const absent = 'absent-gpu-scheduler';
    const counting = await startReconcilerLambda(harness.info, {
      functionName: 'capacity-reconciler',
      environment: reconcilerEnv(harness.info, namespace, { NODE_UTILIZATION_ENABLED: 'false', NODE_SELECTOR: 'karpenter.sh/nodepool', GPU_SCHEDULER_NAME: absent }),
      logDir,
      onLogRecord: (record) => records.push({ ...record, capacity: true }),
    });
    try {
      const unschedulable = async (name: string, gpus: number) => {
        await core.createNamespacedPod({
          namespace,
          body: {
            metadata: { name },
            spec: {
              ...podSpec,
              schedulerName: absent,
              containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
            },
          },
        });
        const message = `0/1 nodes are available: 1 Insufficient nvidia.com/gpu.`;
        await core.patchNamespacedPodStatus(
          { namespace, name, body: { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastTransitionTime: new Date() }] } } },
          setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
        );
      };
      // Fits the pinned pod's node (3 GPUs free): Karpenter nominates it there.
      await unschedulable('fits-existing', 1);
      // Fits no node there is: Karpenter launches one.
      await unschedulable('needs-launch', 4);
      // Fits no instance type of the pool (4 GPUs at most): nothing is launched.
      await unschedulable('fits-nothing', 8);
      const nominations = await waitFor('Karpenter to nominate both pods', async () => {
        const events = (await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.kind=Pod,reason=Nominated' })).items;
        const byPod = new Map(events.map((e) => [e.involvedObject.name ?? '', e.message ?? '']));
        return byPod.has('fits-existing') && byPod.has('needs-launch') ? byPod : undefined;
      }, { timeoutMs: 60_000 });
      expect(nominations.get('fits-existing')).toMatch(/node\//);
      expect(nominations.get('needs-launch')).toMatch(/^Pod should schedule on: nodeclaim\/[^,]+$/);

      const before = records.length;
      await counting.invoke({ id: 'capacity', time: new Date().toISOString() });
      const run = await waitFor('the capacity run', async () => {
        const written = records.slice(before).filter((r) => r.capacity === true);
        return emfValues(written, 'GpuPodsWaitingForFit').length > 0 ? written : undefined;
      });
      expect(emfValues(run, 'GpuPodsPending').map((v) => v.value)).toEqual([3]);
      expect(emfValues(run, 'GpuPodsWaitingForCapacity').map((v) => v.value)).toEqual([1]);
      expect(emfValues(run, 'GpuPodsWaitingForFit').map((v) => v.value)).toEqual([2]);
      expect(emfValues(run, 'ReconcilerErrors')).toEqual([]);
    } finally {
      await counting.stop();
      for (const name of ['fits-existing', 'needs-launch', 'fits-nothing']) await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 }).catch(() => undefined);
    }
  }, 240_000);
});
