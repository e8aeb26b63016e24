// Issue 13 end to end: GPU nodes as production clusters have them — labelled
// only by Karpenter or only by NVIDIA GPU Feature Discovery, time-sliced, MIG
// `single`, or reporting impossible numbers — scheduled by a real kube-scheduler
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
import { createExtenderHandler } from '../../lambdas/extender/extender-handler';
import type { ExtenderObserver } from '../../lambdas/extender/observer';
import { startAlbAdapter, type AlbAdapter } from '../../local/alb-adapter';
import { e2eHarness } from '../../local/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels, type GpuNode, type GpuNodeSpec } from '../../local/gpu-nodes';
import type { ManagedProcess } from '../../local/managed-process';
import { podEvents, waitForPodEvent, waitForPodScheduled } from '../../local/pod-status';
import { GPU_SCHEDULER_NAME } from '../../local/scheduler-config';

const harness = e2eHarness();
const { core } = harness;

const CASE_LABEL = 'e2e.gpu-scheduling/case';
const WAIT_MS = 90_000;

// What the real labellers write (DESIGN.md "Real clusters"; Karpenter's AWS
// provider labels, GFD's "Generated Labels" and MIG single tables).
const KARPENTER_P4D = {
  'karpenter.sh/nodepool': 'gpu',
  'karpenter.sh/capacity-type': 'on-demand',
  'karpenter.k8s.aws/instance-gpu-name': 'a100',
  'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
  'karpenter.k8s.aws/instance-gpu-count': '8',
  'karpenter.k8s.aws/instance-gpu-memory': '40960',
};
const GFD_P4D = {
  'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB',
  'nvidia.com/gpu.count': '8',
  'nvidia.com/gpu.memory': '40960',
  'nvidia.com/gpu.replicas': '1',
  'nvidia.com/gpu.sharing-strategy': 'none',
  'nvidia.com/mig.capable': 'true',
};
/** g5.12xlarge (4 × A10G) with the device plugin's time-slicing, 4 replicas per GPU, default renaming (-SHARED). */
const GFD_G5_TIME_SLICED = {
  'nvidia.com/gpu.product': 'NVIDIA-A10G-SHARED',
  'nvidia.com/gpu.count': '4',
  'nvidia.com/gpu.memory': '23028',
  'nvidia.com/gpu.replicas': '4',
  'nvidia.com/gpu.sharing-strategy': 'time-slicing',
};
/** p4d.24xlarge partitioned with MIG `single`, 7 × 1g.5gb per A100: 56 devices of 5 GB. */
const GFD_P4D_MIG_SINGLE = {
  'nvidia.com/mig.capable': 'true',
  'nvidia.com/mig.strategy': 'single',
  'nvidia.com/gpu.product': 'A100-SXM4-40GB-MIG-1g.5gb',
  'nvidia.com/gpu.count': '56',
  'nvidia.com/gpu.memory': '5120',
  'nvidia.com/gpu.replicas': '1',
};
const IMPOSSIBLE_GPU_COUNT = '2147483648';

// Every extender exchange, to show it was asked and always answered.
const responses: { path: string; status: number }[] = [];
const decisions: { verb: string; summary: DecisionSummary }[] = [];
const failures: { verb: string | undefined; status: number; message: string }[] = [];
const observer: ExtenderObserver = {
  decision: (verb, summary) => decisions.push({ verb, summary }),
  failure: (verb, status, message) => failures.push({ verb, status, message }),
  warn: () => undefined,
};

let adapter: AlbAdapter | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const nodes: Record<'karpenter' | 'gfd' | 'timeSliced' | 'migSingle' | 'impossible' | 'normal', GpuNode | undefined> = {
  karpenter: undefined,
  gfd: undefined,
  timeSliced: undefined,
  migSingle: undefined,
  impossible: undefined,
  normal: undefined,
};
const nodeCount = Object.keys(nodes).length;

function nodeName(key: keyof typeof nodes): string {
  const node = nodes[key];
  if (!node) throw new Error(`node ${key} was not created`);
  return node.name;
}

async function gpuNode(caseName: string, spec: GpuNodeSpec): Promise<GpuNode> {
  return createGpuNode(harness.nodeClients, { ...spec, labels: { [CASE_LABEL]: caseName, ...spec.labels } });
}

interface PodSpec {
  name: string;
  gpus: number;
  annotations?: Record<string, string>;
  nodeSelector: Record<string, string>;
}

function gpuPod({ name, gpus, annotations, nodeSelector }: PodSpec): V1Pod {
  return {
    metadata: { name, annotations: annotations ?? {} },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      nodeSelector,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
    },
  };
}

const A100_40GI = { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40Gi' };
const inCase = (caseName: string): Record<string, string> => ({ [CASE_LABEL]: caseName });

const scheduledOn = (name: string): Promise<string> => waitForPodScheduled(core, { namespace, name }, WAIT_MS);

/** The message of the pod's first FailedScheduling event, once the pod is known to be still unbound. */
async function failedScheduling(name: string): Promise<string> {
  const event = await waitForPodEvent(core, { namespace, name }, (e) => e.reason === 'FailedScheduling', WAIT_MS);
  const pod = await core.readNamespacedPod({ namespace, name });
  expect(pod.spec?.nodeName ?? '').toBe('');
  expect(pod.status?.phase).toBe('Pending');
  return event.message ?? '';
}

/** kube-scheduler's summary when the extender rejected the one node the pod's selector left. */
const onlyReason = (reason: string): string =>
  `0/${nodeCount} nodes are available: 1 ${reason}, ${nodeCount - 1} node(s) didn't match Pod's node affinity/selector.`;

const filterDecisionsOf = (pod: string): DecisionSummary[] =>
  decisions.filter((d) => d.verb === 'filter' && d.summary.pod === `${namespace}/${pod}`).map((d) => d.summary);

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('real-nodes');

  const handler = createExtenderHandler({
    // The extender's least-privilege identity for its cluster view; a short cache TTL.
    env: { KUBECONFIG: harness.info.controlPlane.lambdaKubeconfigs.extender, EXTENDER_CACHE_TTL: '1s' },
    observer,
  });
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event) => {
      const result = await handler(event);
      responses.push({ path: event.path, status: result.statusCode });
      return result;
    },
  });

  const p4d = await describeInstanceType(harness.ec2, 'p4d.24xlarge');
  const ours = seedGpuLabels(p4d); // gpu.nvidia.com/{model: A100, memory: 40960, count: 8, …}
  [nodes.karpenter, nodes.gfd, nodes.timeSliced, nodes.migSingle, nodes.impossible, nodes.normal] = await Promise.all([
    gpuNode('karpenter', { instanceType: 'p4d.24xlarge', labels: KARPENTER_P4D }),
    gpuNode('gfd', { instanceType: 'p4d.24xlarge', labels: GFD_P4D }),
    gpuNode('time-sliced', { instanceType: 'g5.12xlarge', labels: GFD_G5_TIME_SLICED, resources: { 'nvidia.com/gpu': '16' } }),
    gpuNode('mig-single', { instanceType: 'p4d.24xlarge', labels: { ...ours, ...GFD_P4D_MIG_SINGLE }, resources: { 'nvidia.com/gpu': '56' } }),
    gpuNode('impossible', { instanceType: 'p4d.24xlarge', labels: ours, resources: { 'nvidia.com/gpu': IMPOSSIBLE_GPU_COUNT } }),
    gpuNode('impossible', { instanceType: 'p4d.24xlarge', labels: ours }),
  ]);
  for (const key of ['karpenter', 'gfd'] as const) {
    // The premise of cases 1 and 2: none of our own labels on these nodes.
    expect(Object.keys(nodes[key]?.node.metadata?.labels ?? {}).filter((k) => k.startsWith('gpu.nvidia.com/'))).toEqual([]);
  }

  scheduler = await harness.startGpuScheduler({
    urlPrefix: adapter.url,
    // As deployed (cdk/lib/scheduler): NodeNames, read from the extender's cluster cache.
    nodeCacheCapable: true,
    ignorable: false,
    preemptVerb: 'preempt',
    httpTimeout: '5s',
  });

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
  ];
  await Promise.all(pods.map((pod) => core.createNamespacedPod({ namespace, body: gpuPod(pod) })));
});

afterAll(async () => {
  await scheduler?.stop();
  await adapter?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace });
  await harness.resetCluster();
});

describe('GPU nodes as production clusters label them, through the real kube-scheduler', () => {
  it('1: schedules an A100/40Gi pod on a node only Karpenter has labelled', async () => {
    expect(await scheduledOn('karpenter-a100')).toBe(nodeName('karpenter'));
    // Before issue 13: "GPU model mismatch: pod wants A100, node has no gpu.nvidia.com/model label".
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
      onlyReason('GPUs are shared on this node (time-slicing, 4 replicas per GPU, 4 physical): 8 nvidia.com/gpu would be 8 replicas, not 8 GPUs'),
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
    expect(failures).toEqual([]);
    expect(responses.length).toBeGreaterThan(0);
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
