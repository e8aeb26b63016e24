// GPU nodes as production clusters have them — labelled
// only by Karpenter or only by NVIDIA GPU Feature Discovery, time-sliced
// (replicas as nvidia.com/gpu or renamed nvidia.com/gpu.shared), MIG `single`
// or `mixed`, or reporting impossible numbers — scheduled by a real kube-scheduler
// (profile gpu-scheduler) that calls the extender Lambda handler behind the
// local ALB adapter. Every assertion is on what kube-scheduler did: the pod's
// spec.nodeName, or the message of its FailedScheduling event (what
// `kubectl describe pod` shows).
//
// Speed: all nodes and pods are created at once, under one gpu-scheduler.
// Isolation: each case's nodes carry a case label and its pods select it, so
// kube-scheduler hands the extender only that case's nodes (the other nodes
// appear in the events as "didn't match Pod's node affinity/selector").
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionSummary } from '../../lambdas/extender/decision';
import { e2eHarness } from './support/e2e-context';
import { describeInstanceType, seedGpuLabels, type GpuNode, type GpuNodeSpec } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { podEvents, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { AUTO_MODE_P5, GFD_G5_RENAMED, GFD_G5_TIME_SLICED, GFD_P4D, GFD_P4D_MIG_MIXED, GFD_P4D_MIG_SINGLE, GFD_P5, KARPENTER_P4D, MIG_MIXED_RESOURCES, RENAMED_RESOURCES } from './real-node-labels';
import { createCaseNode, createdNodeName, inCase } from './case-nodes';

const harness = e2eHarness();
const { core } = harness;

const WAIT_MS = 90_000;

const IMPOSSIBLE_GPU_COUNT = '2147483648';

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
type NodeKey = 'karpenter' | 'gfd' | 'timeSliced' | 'migSingle' | 'impossible' | 'normal' | 'renamedA' | 'renamedB' | 'migMixed' | 'autoMode' | 'gfdH100' | 'contradicting';
const nodes: Record<NodeKey, GpuNode | undefined> = {
  karpenter: undefined,
  gfd: undefined,
  timeSliced: undefined,
  migSingle: undefined,
  impossible: undefined,
  normal: undefined,
  renamedA: undefined,
  renamedB: undefined,
  migMixed: undefined,
  autoMode: undefined,
  gfdH100: undefined,
  contradicting: undefined,
};
const nodeCount = Object.keys(nodes).length;

const nodeName = (key: keyof typeof nodes): string => createdNodeName(nodes, key);
const gpuNode = (caseName: string, spec: GpuNodeSpec): Promise<GpuNode> => createCaseNode(harness.nodeClients, caseName, spec);

interface PodSpec {
  name: string;
  gpus: number;
  /** The GPU resource asked for. @default 'nvidia.com/gpu' */
  resource?: string;
  annotations?: Record<string, string>;
  nodeSelector: Record<string, string>;
}

function gpuPod({ name, gpus, resource, annotations, nodeSelector }: PodSpec): V1Pod {
  return {
    metadata: { name, annotations: annotations ?? {} },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      nodeSelector,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { [resource ?? 'nvidia.com/gpu']: String(gpus) } } }],
    },
  };
}

const A100_40GI = { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40Gi' };
const H100_80GI = { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '80Gi' };

const scheduledOn = (name: string): Promise<string> => waitForPodScheduled(core, { namespace, name }, WAIT_MS);

/** The message of the pod's first FailedScheduling event, once the pod is known to be still unbound. */
async function failedScheduling(name: string): Promise<string> {
  const event = await waitForPodEvent(core, { namespace, name }, (e) => e.reason === 'FailedScheduling', WAIT_MS);
  const pod = await core.readNamespacedPod({ namespace, name });
  expect(pod.spec?.nodeName ?? '').toBe('');
  expect(pod.status?.phase).toBe('Pending');
  return event.message ?? '';
}

/**
 * kube-scheduler's summary when the `matching` nodes the pod's selector left
 * were all rejected for one reason. It sorts its "<count> <reason>" parts as
 * strings (FitError.Error), so "10 node(s) …" comes before "2 Not enough …".
 */
const onlyReason = (reason: string, matching = 1): string =>
  `0/${nodeCount} nodes are available: ${[`${matching} ${reason}`, `${nodeCount - matching} node(s) didn't match Pod's node affinity/selector`].sort().join(', ')}.`;

const filterDecisionsOf = (pod: string): DecisionSummary[] => extender?.filterDecisionsOf(namespace, pod) ?? [];

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('real-nodes');

  // The extender's least-privilege identity for its cluster view; a short cache TTL.
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  const { adapter } = extender;

  const p4d = await describeInstanceType(harness.ec2, 'p4d.24xlarge');
  const ours = seedGpuLabels(p4d); // gpu.nvidia.com/{model: A100, memory: 40960, count: 8, …}
  [nodes.karpenter, nodes.gfd, nodes.timeSliced, nodes.migSingle, nodes.impossible, nodes.normal, nodes.renamedA, nodes.renamedB, nodes.migMixed, nodes.autoMode, nodes.gfdH100, nodes.contradicting] =
    await Promise.all([
    gpuNode('karpenter', { instanceType: 'p4d.24xlarge', labels: KARPENTER_P4D }),
    gpuNode('gfd', { instanceType: 'p4d.24xlarge', labels: GFD_P4D }),
    gpuNode('time-sliced', { instanceType: 'g5.12xlarge', labels: GFD_G5_TIME_SLICED, resources: { 'nvidia.com/gpu': '16' } }),
    gpuNode('mig-single', { instanceType: 'p4d.24xlarge', labels: { ...ours, ...GFD_P4D_MIG_SINGLE }, resources: { 'nvidia.com/gpu': '56' } }),
    gpuNode('impossible', { instanceType: 'p4d.24xlarge', labels: ours, resources: { 'nvidia.com/gpu': IMPOSSIBLE_GPU_COUNT } }),
    gpuNode('impossible', { instanceType: 'p4d.24xlarge', labels: ours }),
    gpuNode('renamed', { instanceType: 'g5.12xlarge', labels: GFD_G5_RENAMED, resources: RENAMED_RESOURCES }),
    gpuNode('renamed', { instanceType: 'g5.12xlarge', labels: GFD_G5_RENAMED, resources: RENAMED_RESOURCES }),
    gpuNode('mig-mixed', { instanceType: 'p4d.24xlarge', labels: { ...ours, ...GFD_P4D_MIG_MIXED }, resources: MIG_MIXED_RESOURCES }),
    gpuNode('auto-mode', { instanceType: 'p5.48xlarge', labels: AUTO_MODE_P5 }),
    gpuNode('gfd-h100', { instanceType: 'p5.48xlarge', labels: GFD_P5 }),
    // Karpenter says A100, Auto Mode says H100: no labeller can be believed on this node.
    gpuNode('contradicting', { instanceType: 'p4d.24xlarge', labels: { ...KARPENTER_P4D, ...AUTO_MODE_P5 } }),
  ]);
  for (const key of ['karpenter', 'gfd', 'autoMode', 'gfdH100'] as const) {
    // The premise of cases 1 and 2: none of our own labels on these nodes.
    expect(Object.keys(nodes[key]?.node.metadata?.labels ?? {}).filter((k) => k.startsWith('gpu.nvidia.com/'))).toEqual([]);
  }

  // As deployed (cdk/lib/scheduler): NodeNames, read from the extender's cluster cache.
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));

  const pods: PodSpec[] = [
    { name: 'karpenter-a100', gpus: 1, annotations: A100_40GI, nodeSelector: inCase('karpenter') },
    { name: 'gfd-a100', gpus: 1, annotations: A100_40GI, nodeSelector: inCase('gfd') },
    { name: 'shared-8', gpus: 8, nodeSelector: inCase('time-sliced') },
    { name: 'shared-1', gpus: 1, nodeSelector: inCase('time-sliced') },
    { name: 'mig-40gi', gpus: 1, annotations: { 'gpu.nvidia.com/memory': '40Gi' }, nodeSelector: inCase('mig-single') },
    { name: 'mig-4gi', gpus: 1, annotations: { 'gpu.nvidia.com/memory': '4Gi' }, nodeSelector: inCase('mig-single') },
    { name: 'beside-impossible-0', gpus: 4, nodeSelector: inCase('impossible') },
    { name: 'beside-impossible-1', gpus: 4, nodeSelector: inCase('impossible') },
    { name: 'pinned-to-impossible', gpus: 1, nodeSelector: { 'kubernetes.io/hostname': nodeName('impossible') } },
    { name: 'shared-16gi', gpus: 1, resource: 'nvidia.com/gpu.shared', annotations: { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/memory': '16Gi' }, nodeSelector: inCase('renamed') },
    { name: 'shared-40gi', gpus: 1, resource: 'nvidia.com/gpu.shared', annotations: { 'gpu.nvidia.com/memory': '40Gi' }, nodeSelector: inCase('renamed') },
    { name: 'whole-gpu-on-renamed', gpus: 1, nodeSelector: inCase('renamed') },
    { name: 'mig-3g-16gi', gpus: 1, resource: 'nvidia.com/mig-3g.20gb', annotations: { 'gpu.nvidia.com/memory': '16Gi' }, nodeSelector: inCase('mig-mixed') },
    { name: 'mig-3g-40gi', gpus: 1, resource: 'nvidia.com/mig-3g.20gb', annotations: { 'gpu.nvidia.com/memory': '40Gi' }, nodeSelector: inCase('mig-mixed') },
    { name: 'mig-2g-absent', gpus: 1, resource: 'nvidia.com/mig-2g.10gb', nodeSelector: inCase('mig-mixed') },
    { name: 'auto-mode-h100-80gi', gpus: 1, annotations: H100_80GI, nodeSelector: inCase('auto-mode') },
    { name: 'gfd-h100-80gi', gpus: 1, annotations: H100_80GI, nodeSelector: inCase('gfd-h100') },
    { name: 'gfd-h100-96gi', gpus: 1, annotations: { 'gpu.nvidia.com/memory': '96Gi' }, nodeSelector: inCase('gfd-h100') },
    { name: 'on-contradicting', gpus: 1, nodeSelector: inCase('contradicting') },
  ];
  await Promise.all(pods.map((pod) => core.createNamespacedPod({ namespace, body: gpuPod(pod) })));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('GPU nodes as production clusters label them, through the real kube-scheduler', () => {
  it('1: schedules an A100/40Gi pod on a node only Karpenter has labelled', async () => {
    expect(await scheduledOn('karpenter-a100')).toBe(nodeName('karpenter'));
    // Before 3a9d80b: "GPU model mismatch: pod wants A100, node has no gpu.nvidia.com/model label".
    const failed = (await podEvents(core, { namespace, name: 'karpenter-a100' })).filter((e) => e.reason === 'FailedScheduling');
    expect(failed.map((e) => e.message)).toEqual([]);
  });

  it('2: schedules the same pod on a node only GPU Feature Discovery has labelled', async () => {
    expect(await scheduledOn('gfd-a100')).toBe(nodeName('gfd'));
  });

  it('3: a time-sliced node (4 GPUs × 4 replicas = 16) rejects 8 nvidia.com/gpu with the extender reason, and takes 1', async () => {
    expect(await scheduledOn('shared-1')).toBe(nodeName('timeSliced'));
    // kube-scheduler alone sees 16 free nvidia.com/gpu and would bind it; the extender says why not.
    expect(await failedScheduling('shared-8')).toContain(
      onlyReason('GPU sharing mismatch: GPUs are shared on this node (time-slicing, 4 replicas per GPU, 4 physical): 8 nvidia.com/gpu would be 8 replicas, not 8 GPUs'),
    );
    expect(filterDecisionsOf('shared-8')[0]).toMatchObject({ candidates: 1, kept: 0, reasons: { GpuSharingMismatch: 1 } });
  });

  it('4: on a MIG single node a device has the slice memory (5120 MiB), not the 40960 MiB our labels give the full GPU', async () => {
    expect(await scheduledOn('mig-4gi')).toBe(nodeName('migSingle'));
    expect(await failedScheduling('mig-40gi')).toContain(onlyReason('Not enough GPU memory: pod wants 40960 MiB per GPU, node has 5120 MiB'));
    // kube-scheduler saw 56 free nvidia.com/gpu and passed the node on.
    expect(filterDecisionsOf('mig-40gi')[0]).toMatchObject({ candidates: 1, kept: 0, reasons: { InsufficientGpuMemory: 1 } });
  });

  it('5: a node reporting 2147483648 GPUs is rejected alone (InvalidNodeData), the extender keeps answering 200', async () => {
    expect(await scheduledOn('beside-impossible-0')).toBe(nodeName('normal'));
    expect(await scheduledOn('beside-impossible-1')).toBe(nodeName('normal'));
    // kube-scheduler's own fit admits the node (int64 allocatable, 2^31 free GPUs): the extender is what rejects it.
    expect(await failedScheduling('pinned-to-impossible')).toContain(
      onlyReason(`Node reports impossible GPU data: allocatable nvidia.com/gpu="${IMPOSSIBLE_GPU_COUNT}" is outside 0..65536`),
    );

    // The extender was asked about both nodes and decided (the decision log), never failing.
    const beside = filterDecisionsOf('beside-impossible-0');
    expect(beside.length).toBeGreaterThan(0);
    expect(beside[0]).toMatchObject({ mode: 'NodeNames', candidates: 2, kept: 1, failed: 1, reasons: { InvalidNodeData: 1 } });
    expect(filterDecisionsOf('pinned-to-impossible')[0]).toMatchObject({ candidates: 1, kept: 0, reasons: { InvalidNodeData: 1 } });
    expect(extender?.failures).toEqual([]);
    expect(extender?.responses.length).toBeGreaterThan(0);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });

  it('6: renamed time-slicing (nvidia.com/gpu.shared): a sharer reaches the extender and its model and memory annotations hold', async () => {
    expect([nodeName('renamedA'), nodeName('renamedB')]).toContain(await scheduledOn('shared-16gi'));
    expect(filterDecisionsOf('shared-16gi')[0]).toMatchObject({ candidates: 2, kept: 2 });
    expect(await failedScheduling('shared-40gi')).toContain(onlyReason('Not enough GPU memory: pod wants 40960 MiB per GPU, node has 23028 MiB, read as its marketed 24 GiB (24576 MiB)', 2));
    // A pod asking for whole GPUs there is stopped by kube-scheduler's own resource fit: its reason, not ours.
    expect(await failedScheduling('whole-gpu-on-renamed')).toContain(onlyReason('Insufficient nvidia.com/gpu', 2));
    expect(filterDecisionsOf('whole-gpu-on-renamed')).toEqual([]);
  });

  it('7: MIG mixed: pods asking for nvidia.com/mig-3g.20gb reach the extender, which checks memory against the profile', async () => {
    expect(await scheduledOn('mig-3g-16gi')).toBe(nodeName('migMixed'));
    expect(filterDecisionsOf('mig-3g-16gi')[0]).toMatchObject({ candidates: 1, kept: 1 });
    expect(await failedScheduling('mig-3g-40gi')).toContain(onlyReason('Not enough GPU memory: pod wants 40960 MiB per GPU, nvidia.com/mig-3g.20gb has 20096 MiB, read as its marketed 20 GiB (20480 MiB)'));
    // A profile the node does not have: kube-scheduler's own fit rejects it before the extender is asked.
    expect(await failedScheduling('mig-2g-absent')).toContain(onlyReason('Insufficient nvidia.com/mig-2g.10gb'));
  });

  it('8: an H100/80Gi pod fits a node only Auto Mode labelled (EC2 81920 MiB) and one only GFD labelled (NVML 81559 MiB); 96Gi fits neither', async () => {
    expect(await scheduledOn('auto-mode-h100-80gi')).toBe(nodeName('autoMode'));
    expect(await scheduledOn('gfd-h100-80gi')).toBe(nodeName('gfdH100'));
    expect(await failedScheduling('gfd-h100-96gi')).toContain(
      onlyReason('Not enough GPU memory: pod wants 98304 MiB per GPU, node has 81559 MiB, read as its marketed 80 GiB (81920 MiB)'),
    );
  });

  it('9: labellers contradicting each other reject that node alone, naming both sources and values', async () => {
    expect(await failedScheduling('on-contradicting')).toContain(
      onlyReason(
        'Node reports impossible GPU data: labellers disagree on the GPU model: karpenter.k8s.aws/instance-gpu-name="a100", eks.amazonaws.com/instance-gpu-name="h100"; ' +
          'labellers disagree on the GPU memory: karpenter.k8s.aws/instance-gpu-memory="40960", eks.amazonaws.com/instance-gpu-memory="81920"',
      ),
    );
  });
});
