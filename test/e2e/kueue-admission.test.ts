// All or nothing through Kueue: two Jobs of 4 pods × 8 GPUs, scheduled by the
// real gpu-scheduler (kube-scheduler calling the extender) on four p4d.24xlarge
// nodes: room for one of them. Kueue (built from its module, its webhooks
// suspending Jobs that name a queue, waitForPodsReady) admits one against a
// ClusterQueue of 32 GPUs; its pods are created, bound and run. The other
// stays suspended: no pod exists, so none is bound and no GPU is held, and
// nothing of it reaches the scheduler or the extender. When the first Job
// completes, Kueue releases its quota and the second runs whole.
import { BatchV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kueueClusterQueue, kueueLocalQueue, kueueResourceFlavor } from '../../cdk/lib/kueue/kueue-objects';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels } from '../../local/nodes/gpu-nodes';
import type { Kueue } from '../../local/addons/kueue';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { condition, createObjects, finishPods, gpuJob, gpusHeld, jobPods, readJob, runPods, waitForJobBound, waitForWorkloadCondition } from './kueue-fixtures';

const harness = e2eHarness();
const { core, kubeConfig } = harness;

const INSTANCE_TYPE = 'p4d.24xlarge';
const NODES = 4;
const JOB = { pods: 4, gpusPerPod: 8 } as const;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let kueue: Kueue | undefined;
let namespace = '';
const nodeNames: string[] = [];

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('kueue-admission');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1000ms' });
  const facts = await describeInstanceType(harness.ec2, INSTANCE_TYPE);
  for (let i = 0; i < NODES; i++) nodeNames.push((await createGpuNode(harness.nodeClients, { instanceType: INSTANCE_TYPE, labels: seedGpuLabels(facts) })).name);
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  // Admit the next workload only once the last admitted one has all its pods Ready.
  kueue = await harness.startKueue({ waitForPodsReady: { timeout: '10m', blockAdmission: true } });
  await createObjects(kubeConfig, [
    kueueResourceFlavor({ instanceType: INSTANCE_TYPE }),
    kueueClusterQueue({ name: 'training', quotas: [{ instanceType: INSTANCE_TYPE, gpus: NODES * 8 }] }),
    kueueLocalQueue('team', namespace, 'training'),
  ]);
}, 180_000);

afterAll(() => harness.tearDown(namespace, scheduler, kueue, extender), 120_000);

const nodesOf = (pods: readonly V1Pod[]): string[] => pods.map((p) => p.spec?.nodeName ?? '').sort();

describe('two 32-GPU Jobs on room for one, through Kueue and the gpu-scheduler', () => {
  it('runs one whole, holds the other back with no pod and no GPU, then runs it when the first completes', async () => {
    const jobs = kubeConfig.makeApiClient(BatchV1Api);
    // As the user writes them: not suspended; only the queue name is Kueue's.
    for (const name of ['first', 'second']) await jobs.createNamespacedJob({ namespace, body: gpuJob({ name, queue: 'team', ...JOB }) });
    for (const name of ['first', 'second']) expect((await readJob(kubeConfig, namespace, name)).spec?.suspend, `Kueue's webhook suspends ${name} at creation`).toBe(true);

    await waitForWorkloadCondition(kubeConfig, namespace, 'first', 'Admitted', 'True');
    const first = await waitForJobBound(core, namespace, 'first', JOB.pods);
    // One pod per node: each asks for all 8 GPUs of a p4d.24xlarge.
    expect(nodesOf(first)).toEqual([...nodeNames].sort());
    await runPods(core, namespace, first);
    await waitForWorkloadCondition(kubeConfig, namespace, 'first', 'PodsReady', 'True');

    // The second waits whole: Kueue decided it does not fit (QuotaReserved False, with its reason),
    // so it stays suspended, no pod created, none bound and no GPU held.
    const waiting = await waitForWorkloadCondition(kubeConfig, namespace, 'second', 'QuotaReserved', 'False');
    expect(condition(waiting, 'QuotaReserved')).toMatchObject({ status: 'False' });
    expect(condition(waiting, 'QuotaReserved')?.message).toMatch(/insufficient (unused )?quota.*nvidia\.com\/gpu/i);
    expect((await readJob(kubeConfig, namespace, 'second')).spec?.suspend).toBe(true);
    expect(await jobPods(core, namespace, 'second')).toEqual([]);
    expect(await gpusHeld(core, namespace)).toEqual({ first: 32 });
    expect(extender?.decisions.some((d) => d.summary.pod.startsWith(`${namespace}/second-`))).toBe(false);

    // The first completes: Kueue frees its quota and the second runs whole.
    await finishPods(core, namespace, first);
    await waitForWorkloadCondition(kubeConfig, namespace, 'first', 'Finished', 'True');
    await waitForWorkloadCondition(kubeConfig, namespace, 'second', 'Admitted', 'True');
    const second = await waitForJobBound(core, namespace, 'second', JOB.pods);
    expect(nodesOf(second)).toEqual([...nodeNames].sort());
    await runPods(core, namespace, second);
    await waitForWorkloadCondition(kubeConfig, namespace, 'second', 'PodsReady', 'True');
    expect(await gpusHeld(core, namespace)).toEqual({ second: 32 });
    // Every pod of both went through the extender, which always answered.
    const filtered = new Set(extender?.decisions.filter((d) => d.verb === 'filter').map((d) => d.summary.pod));
    for (const pod of [...first, ...second]) expect(filtered.has(`${namespace}/${pod.metadata?.name ?? ''}`)).toBe(true);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  }, 240_000);
});
