// A Job submitted through Kueue from a namespace opted in to GPU scheduling
// (label gpu.nvidia.com/scheduler=enabled): the manifest names its LocalQueue
// and nothing else of Kueue or of gpu-scheduler: no suspend, no scheduler
// name, no toleration, no affinity, only `gpu.nvidia.com/memory: 80Gi` on the
// pods. Kueue's webhook suspends it, Kueue admits it against the H100 flavor's
// quota and adds the flavor's node selector; the GPU-intent admission
// policies hand each pod to gpu-scheduler, let it past the GPU taint and turn
// 80Gi into node affinity; the real kube-scheduler and extender place the
// pods on the H100 nodes (one labelled by GPU Feature Discovery, one by
// Karpenter, neither by our labeler).
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPU_NODE_TAINT_KEY, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { INSTANCE_TYPE_LABEL, KUEUE_QUEUE_LABEL, kueueClusterQueue, kueueLocalQueue, kueueResourceFlavor } from '../../cdk/lib/kueue/kueue-objects';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import type { Kueue } from '../../local/addons/kueue';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { createObjects, readJob, runPods, waitForJobBound, waitForWorkloadCondition } from './kueue-fixtures';
import { GFD_P4D, GFD_P5, KARPENTER_P4D } from './real-node-labels';

const harness = e2eHarness();
const { core, kubeConfig } = harness;

const KARPENTER_P5 = { ...KARPENTER_P4D, 'karpenter.k8s.aws/instance-gpu-name': 'h100', 'karpenter.k8s.aws/instance-gpu-memory': '81920' };
const GPU_TAINT = { key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NoSchedule' } as const;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let kueue: Kueue | undefined;
let namespace = '';

beforeAll(async () => {
  await harness.resetCluster();
  const ns = await core.createNamespace({ body: { metadata: { generateName: 'kueue-opt-in-', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  namespace = ns.metadata?.name ?? '';
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  const node = (name: string, instanceType: string, labels: Record<string, string>) => createGpuNode(harness.nodeClients, { name, instanceType, labels, taints: [GPU_TAINT] });
  await Promise.all([
    node('gfd-h100', 'p5.48xlarge', GFD_P5),
    node('karpenter-h100', 'p5.48xlarge', KARPENTER_P5),
    node('gfd-a100', 'p4d.24xlarge', GFD_P4D),
    node('karpenter-a100', 'p4d.24xlarge', KARPENTER_P4D),
  ]);
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  kueue = await harness.startKueue({ waitForPodsReady: { timeout: '10m', blockAdmission: true } });
  await createObjects(kubeConfig, [
    kueueResourceFlavor({ instanceType: 'p5.48xlarge', tolerations: [GPU_TAINT] }),
    kueueClusterQueue({ name: 'research', quotas: [{ instanceType: 'p5.48xlarge', gpus: 16 }] }),
    kueueLocalQueue('research', namespace, 'research'),
  ]);
}, 180_000);

afterAll(() => harness.tearDown(namespace, scheduler, kueue, extender), 120_000);

/** What a user writes: a 2-rank Job of whole 80 GiB-GPU nodes, naming its queue. */
const userJob: V1Job = {
  metadata: { name: 'finetune', labels: { [KUEUE_QUEUE_LABEL]: 'research' } },
  spec: {
    parallelism: 2,
    completions: 2,
    completionMode: 'Indexed',
    template: {
      metadata: { annotations: { 'gpu.nvidia.com/memory': '80Gi' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '8' } } }] },
    },
  },
};

describe('a Job from an opted-in namespace through Kueue, naming only its queue', () => {
  it('is suspended by Kueue, admitted, and its pods are placed by gpu-scheduler on the H100 nodes', async () => {
    await kubeConfig.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: userJob });
    expect((await readJob(kubeConfig, namespace, 'finetune')).spec?.suspend).toBe(true);

    const workload = await waitForWorkloadCondition(kubeConfig, namespace, 'finetune', 'Admitted', 'True');
    expect(workload.status?.admission?.podSetAssignments[0]?.flavors).toEqual({ 'nvidia.com/gpu': 'p5-48xlarge' });
    const pods = await waitForJobBound(core, namespace, 'finetune', 2);
    expect(pods.map((p) => p.spec?.nodeName).sort()).toEqual(['gfd-h100', 'karpenter-h100']);
    for (const pod of pods) {
      // From the admission policies: the scheduler, the toleration, the affinity from 80Gi.
      expect(pod.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
      expect(pod.spec?.tolerations).toEqual(expect.arrayContaining([expect.objectContaining({ key: GPU_NODE_TAINT_KEY })]));
      expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toBeDefined();
      // From Kueue: the flavor's node selector.
      expect(pod.spec?.nodeSelector).toEqual({ [INSTANCE_TYPE_LABEL]: 'p5.48xlarge' });
    }
    const filtered = new Set(extender?.decisions.filter((d) => d.verb === 'filter').map((d) => d.summary.pod));
    for (const pod of pods) expect(filtered.has(`${namespace}/${pod.metadata?.name ?? ''}`)).toBe(true);
    await runPods(core, namespace, pods);
    await waitForWorkloadCondition(kubeConfig, namespace, 'finetune', 'PodsReady', 'True');
  }, 180_000);
});
