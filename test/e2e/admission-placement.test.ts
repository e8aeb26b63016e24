// End to end: a GPU pod written with no scheduler, no toleration and no
// affinity, only `gpu.nvidia.com/memory: 80Gi`, created in an opted-in
// namespace. The admission policies hand it to gpu-scheduler, let it past the
// GPU taint and turn 80Gi into node affinity; the real kube-scheduler
// (gpu-scheduler profile) drops the A100 40GB nodes by that affinity before
// it asks the extender, and places the pods on the H100s, whether GPU Feature
// Discovery (81559 MiB) or Karpenter (81920 MiB) labelled them.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPU_NODE_TAINT_KEY, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { GFD_P4D, GFD_P5, KARPENTER_P4D } from './real-node-labels';

const harness = e2eHarness();
const { core } = harness;

/** A p5 as Karpenter's AWS provider labels it: EC2's 81920 MiB. */
const KARPENTER_P5 = { ...KARPENTER_P4D, 'karpenter.k8s.aws/instance-gpu-name': 'h100', 'karpenter.k8s.aws/instance-gpu-memory': '81920' };
/** The GPU node groups' taint (cluster.eachGpuNodeGroup.taints). */
const GPU_TAINT = { key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NoSchedule' };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';

beforeAll(async () => {
  await harness.resetCluster();
  const ns = await core.createNamespace({ body: { metadata: { generateName: 'admission-placement-', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  namespace = ns.metadata?.name ?? '';
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  const node = (name: string, instanceType: string, labels: Record<string, string>) =>
    createGpuNode(harness.nodeClients, { name, instanceType, labels, taints: [GPU_TAINT] });
  await Promise.all([
    node('gfd-h100', 'p5.48xlarge', GFD_P5),
    node('karpenter-h100', 'p5.48xlarge', KARPENTER_P5),
    node('gfd-a100', 'p4d.24xlarge', GFD_P4D),
    node('karpenter-a100', 'p4d.24xlarge', KARPENTER_P4D),
  ]);
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

/** All eight GPUs of a node, 80 GiB each; nothing else about placement. */
function wholeNode(name: string): V1Pod {
  return {
    metadata: { name, annotations: { 'gpu.nvidia.com/memory': '80Gi' } },
    spec: { containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '8' } } }] },
  };
}

describe('a pod opted in by its namespace, placed by the translated affinity', () => {
  it('two 8-GPU 80Gi pods land on the GFD-labelled and the Karpenter-labelled H100; the A100 40GB nodes never reach the extender', async () => {
    const placed: string[] = [];
    for (const name of ['trainer-0', 'trainer-1']) {
      const created = await core.createNamespacedPod({ namespace, body: wholeNode(name) });
      expect(created.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
      placed.push(await waitForPodScheduled(core, { namespace, name }, 60_000));
    }
    expect(placed.sort()).toEqual(['gfd-h100', 'karpenter-h100']);
    // kube-scheduler's NodeAffinity filter ran first: the extender was asked about the H100s only.
    const first = extender?.filterDecisionsOf(namespace, 'trainer-0')[0];
    expect(first).toMatchObject({ candidates: 2, kept: 2 });
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
