// GPU health from NVIDIA's DRA driver with the real kube-scheduler v1.36
// (DRADeviceTaints beta and on), the extender and the reconciler as
// deployed. The driver's health monitor taints a device of its
// ResourceSlice after an NVML event: `gpu.nvidia.com/xid` NoSchedule for a
// fatal XID, effect None for one that only warns. kube-scheduler's
// allocator skips a NoSchedule device; the extender and the reconciler take
// it out of its node's count too, so the next claim fills the node's healthy
// GPUs exactly and GpusUnhealthy counts it; a None taint leaves the GPU counted and makes the
// reconciler label the node degraded, and placement then prefers an equal
// healthy node. The taints are written the way the driver writes them: the slice
// read, changed and replaced (local/addons/dra-gpu-driver.ts).
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSEEN_CLAIM_REFRESH_MS } from '../../lambdas/extender/candidate-nodes';
import { NODE_ANNOTATION, NODE_LABEL } from '../../lambdas/scheduling/keys';
import { DRA_GPUS, installDraGpuDriver, nvidiaGpuClaimTemplate, type DraGpuDriver } from '../../local/addons/dra-gpu-driver';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import type { GpuNode } from '../../local/nodes/gpu-nodes';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import type { LocalLambda } from '../../local/start/local-lambda';
import { CASE_LABEL, createCaseNode, inCase } from './case-nodes';
import { emfValues } from './emf-records';
import { reconcilerEnv, startReconcilerLambda, reconcileOnce } from './reconciler-fixtures';
import { claimingPod, podAllocatedDevices } from './support/dra-allocation';
import { e2eHarness } from './support/e2e-context';

const h = e2eHarness();
const { core } = h;
const objects = KubernetesObjectApi.makeApiClient(h.kubeConfig);
const allocatedDevices = (pod: string): Promise<string[]> => podAllocatedDevices(h.kubeConfig, namespace, pod);
const CASE = 'dra-health';
const WAIT_MS = 90_000;
const logDir = mkdtempSync(join(tmpdir(), 'gpu-health-dra-'));
const records: Record<string, unknown>[] = [];
let namespace = '';
let driver: DraGpuDriver | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let reconciler: LocalLambda | undefined;
const nodes: GpuNode[] = [];

/** One reconciler run: its records once it logged its end. */
const reconcile = (id: string) => reconcileOnce(reconciler, () => records, id);

beforeAll(async () => {
  await h.resetCluster();
  namespace = await h.createNamespace('gpu-health-dra');
  driver = await installDraGpuDriver(h.kubeConfig);
  for (let i = 0; i < 3; i += 1) {
    const node = await createCaseNode(h.nodeClients, CASE, { instanceType: 'g5.12xlarge', gpusFrom: 'dra' });
    await driver.publish(node.node, 4, DRA_GPUS.a10g);
    nodes.push(node);
  }
  for (const [name, count] of [['one-gpu', 1], ['two-gpus', 2]] as const) {
    await objects.create({ ...nvidiaGpuClaimTemplate(name, count), metadata: { name, namespace } } as unknown as KubernetesObject);
  }
  extender = await startRecordingExtender(h.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await h.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  reconciler = await startReconcilerLambda(h.info, {
    functionName: 'gpu-health-dra-reconciler',
    environment: reconcilerEnv(h.info, namespace, { NODE_SELECTOR: `${CASE_LABEL}=${CASE}`, NODE_UTILIZATION_ENABLED: 'false' }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
}, 180_000);

afterAll(async () => {
  await reconciler?.stop();
  await h.tearDown(namespace, scheduler, extender);
  await driver?.uninstall();
  rmSync(logDir, { recursive: true, force: true });
}, 120_000);

describe("GPU health from the DRA driver's device taints", () => {
  it('a NoSchedule taint takes the GPU out of its node, in placement and in the outcome', async () => {
    const [tainted] = nodes;
    if (!tainted) throw new Error('setup failed');
    await driver?.taint(tainted.name, 0, { key: 'gpu.nvidia.com/xid', value: '79', effect: 'NoSchedule' });
    await extender?.waitForSnapshot(`count 3 of ${tainted.name}'s 4 GPUs`, (snapshot) => snapshot.dra.gpusByNode.get(tainted.name)?.devices === 3);

    // One GPU claimed on the tainted node: kube-scheduler's allocator skips the tainted device.
    await core.createNamespacedPod({ namespace, body: claimingPod('one', 'one-gpu', { 'kubernetes.io/hostname': tainted.name }) });
    expect(await waitForPodScheduled(core, { namespace, name: 'one' }, WAIT_MS)).toBe(tainted.name);
    expect(await allocatedDevices('one')).toEqual([expect.stringMatching(new RegExp(`^${tainted.name}/gpu-[1-3]$`))]);
    await extender?.waitForSnapshot(`count the claimed GPU on ${tainted.name}`, (snapshot) => snapshot.dra.gpusByNode.get(tainted.name)?.claimed === 1);
    // The next pod's claim is made just before kube-scheduler asks; past this age the request refreshes for it (as in dra-resource-claims).
    await extender?.waitForStaleSnapshot(UNSEEN_CLAIM_REFRESH_MS);

    // Two GPUs fill the tainted node's two free healthy ones exactly. Counted with the tainted one, it
    // would have three free and strand one, and an empty node would do as well.
    await core.createNamespacedPod({ namespace, body: claimingPod('two', 'two-gpus', inCase(CASE)) });
    const placed = await waitForPodScheduled(core, { namespace, name: 'two' }, WAIT_MS);
    // kube-scheduler's own DRA filter kept every node (two untainted devices are enough), so the choice was the extender's.
    expect({ filter: extender?.filterDecisionsOf(namespace, 'two').at(-1), ranking: extender?.lastRankingOf(namespace, 'two') }).toMatchObject({ filter: { candidates: 3, kept: 3 }, ranking: { best: { node: tainted.name }, tie: false } });
    expect(placed).toBe(tainted.name);
    expect((await allocatedDevices('two')).every((device) => device !== `${tainted.name}/gpu-0`)).toBe(true);

    const run = await reconcile('no-schedule');
    expect(emfValues(run, 'GpusUnhealthy').map((v) => v.value)).toEqual([1]);
    // Withheld, not degraded: the node's other GPUs are fine, and its label stays unset.
    expect((await core.readNode({ name: tainted.name })).metadata?.labels?.[NODE_LABEL.gpuHealth]).toBeUndefined();
  }, 240_000);

  it('a None taint leaves the GPU counted, labels the node degraded, and placement prefers an equal healthy node', async () => {
    const [, warned, healthy] = nodes;
    if (!warned || !healthy) throw new Error('setup failed');
    // A warning-level taint: the node still has 4 GPUs, one of them reporting XID 13.
    await driver?.taint(warned.name, 3, { key: 'gpu.nvidia.com/xid', value: '13', effect: 'None' });
    await extender?.waitForSnapshot(`see ${warned.name}'s warning taint with its 4 GPUs counted`, (snapshot) => {
      const gpus = snapshot.dra.gpusByNode.get(warned.name);
      return gpus?.warnings.length === 1 && gpus.devices === 4;
    });

    const run = await reconcile('none');
    const node = await core.readNode({ name: warned.name });
    expect(node.metadata?.labels?.[NODE_LABEL.gpuHealth]).toBe('degraded');
    expect(node.metadata?.annotations?.[NODE_ANNOTATION.gpuHealthReasons]).toContain('DRA gpu-3 gpu.nvidia.com/xid=13 (None)');
    expect(emfValues(run, 'GpusDegraded').map((v) => v.value)).toEqual([4]);
    expect((await core.readNode({ name: healthy.name })).metadata?.labels?.[NODE_LABEL.gpuHealth]).toBeUndefined();

    // Two empty 4-GPU nodes, alike but for health: the healthy one wins, and not by a tie.
    await extender?.waitForSnapshot(`see ${warned.name} degraded`, (snapshot) => (snapshot.getNode(warned.name)?.health.degraded.length ?? 0) > 0);
    // As above: old enough that the request refreshes for the pod's new claim, so its GPUs are known.
    await extender?.waitForStaleSnapshot(UNSEEN_CLAIM_REFRESH_MS);
    await core.createNamespacedPod({ namespace, body: claimingPod('prefers-healthy', 'two-gpus', inCase(CASE)) });
    expect(await waitForPodScheduled(core, { namespace, name: 'prefers-healthy' }, WAIT_MS)).toBe(healthy.name);
    expect(extender?.lastRankingOf(namespace, 'prefers-healthy')).toMatchObject({ best: { node: healthy.name }, runnerUp: { node: warned.name }, tie: false });
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  }, 240_000);
});
