// GPU quota per model through Kueue, placed by the real gpu-scheduler: two
// p5.48xlarge (H100) and two p4d.24xlarge (A100) nodes, one ResourceFlavor
// per instance type (node.kubernetes.io/instance-type, which every node has
// whoever labels its GPUs), three ClusterQueues in one cohort:
//   fixed:   8 H100s, borrows nothing;
//   elastic: no H100s of its own, may borrow up to 8;
//   nlp:     8 H100s and 16 A100s, lends what it does not use.
// A team at its H100 quota waits even though the cohort has unused A100 quota
// and nlp's H100s stand idle; elastic borrows nlp's idle H100s up to its
// limit; nlp's own H100 Job then waits for its lent quota (no preemption is
// configured) while its A100 Job runs. Every admitted Job's pods land on
// nodes of their flavor, bound by the gpu-scheduler.
import { BatchV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kueueClusterQueue, kueueLocalQueue, kueueResourceFlavor } from '../../cdk/lib/kueue/kueue-objects';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels } from '../../local/nodes/gpu-nodes';
import type { Kueue } from '../../local/addons/kueue';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { condition, createObjects, gpuJob, jobPods, runPods, waitForJobBound, waitForWorkloadCondition, workloadOf } from './kueue-fixtures';

const harness = e2eHarness();
const { core, kubeConfig } = harness;

const H100 = 'p5.48xlarge';
const A100 = 'p4d.24xlarge';
const COHORT = 'research';

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let kueue: Kueue | undefined;
let namespace = '';
const modelOf = new Map<string, 'H100' | 'A100'>();

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('kueue-quota');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1000ms' });
  for (const [instanceType, model] of [[H100, 'H100'], [A100, 'A100']] as const) {
    const facts = await describeInstanceType(harness.ec2, instanceType);
    for (let i = 0; i < 2; i++) modelOf.set((await createGpuNode(harness.nodeClients, { instanceType, labels: seedGpuLabels(facts) })).name, model);
  }
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  kueue = await harness.startKueue({ waitForPodsReady: { timeout: '10m', blockAdmission: false } });
  await createObjects(kubeConfig, [
    kueueResourceFlavor({ instanceType: H100 }),
    kueueResourceFlavor({ instanceType: A100 }),
    kueueClusterQueue({ name: 'fixed', cohort: COHORT, quotas: [{ instanceType: H100, gpus: 8, borrowingLimit: 0 }] }),
    kueueClusterQueue({ name: 'elastic', cohort: COHORT, quotas: [{ instanceType: H100, gpus: 0, borrowingLimit: 8 }] }),
    kueueClusterQueue({ name: 'nlp', cohort: COHORT, quotas: [{ instanceType: H100, gpus: 8 }, { instanceType: A100, gpus: 16 }] }),
    ...['fixed', 'elastic', 'nlp'].map((queue) => kueueLocalQueue(queue, namespace, queue)),
  ]);
}, 180_000);

afterAll(() => harness.tearDown(namespace, scheduler, kueue, extender), 120_000);

const jobs = () => kubeConfig.makeApiClient(BatchV1Api);
const models = (pods: readonly V1Pod[]): string[] => pods.map((p) => modelOf.get(p.spec?.nodeName ?? '') ?? 'none');

async function submit(name: string, queue: string, pods: number): Promise<void> {
  await jobs().createNamespacedJob({ namespace, body: gpuJob({ name, queue, pods, gpusPerPod: 8 }) });
}

/** Admitted, bound, running: returns the GPU model of each pod's node. */
async function runs(name: string, pods: number): Promise<string[]> {
  await waitForWorkloadCondition(kubeConfig, namespace, name, 'Admitted', 'True');
  const bound = await waitForJobBound(core, namespace, name, pods);
  await runPods(core, namespace, bound);
  return models(bound);
}

/** Not admitted, for want of quota, with no pod created. */
async function waitsForQuota(name: string): Promise<string> {
  // Kueue's decision, with its reason: nothing in these tests frees quota afterwards, so it stands.
  const workload = await waitForWorkloadCondition(kubeConfig, namespace, name, 'QuotaReserved', 'False');
  expect(condition(workload, 'Admitted')?.status ?? 'False').toBe('False');
  expect(await jobPods(core, namespace, name)).toEqual([]);
  return condition(workload, 'QuotaReserved')?.message ?? '';
}

describe('GPU quota per model, and borrowing in a cohort', () => {
  it('a queue at its H100 quota waits although the cohort has idle H100s and free A100 quota', async () => {
    await submit('fixed-1', 'fixed', 1);
    expect(await runs('fixed-1', 1)).toEqual(['H100']);
    await submit('fixed-2', 'fixed', 1);
    expect(await waitsForQuota('fixed-2')).toMatch(/insufficient (unused )?quota for nvidia\.com\/gpu in flavor p5-48xlarge/i);
  }, 120_000);

  it('a queue with no H100s of its own borrows idle ones up to its limit', async () => {
    await submit('elastic-1', 'elastic', 1);
    expect(await runs('elastic-1', 1)).toEqual(['H100']);
    const admitted = await workloadOf(kubeConfig, namespace, 'elastic-1');
    expect(admitted?.status?.admission?.podSetAssignments[0]?.flavors?.['nvidia.com/gpu']).toBe('p5-48xlarge');
    await submit('elastic-2', 'elastic', 1);
    expect(await waitsForQuota('elastic-2')).toMatch(/quota.*nvidia\.com\/gpu/i);
  }, 120_000);

  it('the lender waits for its lent H100s while its A100 quota runs a Job on the A100 nodes', async () => {
    await submit('nlp-a100', 'nlp', 2);
    // Kueue tries nlp's flavors in order: H100 quota is lent out, A100 holds both ranks.
    expect(await runs('nlp-a100', 2)).toEqual(['A100', 'A100']);
    await submit('nlp-h100', 'nlp', 1);
    expect(await waitsForQuota('nlp-h100')).toMatch(/quota/i);
  }, 120_000);
});
