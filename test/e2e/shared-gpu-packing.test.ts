// A cluster that runs nothing but GPU sharers (renamed
// time-slicing, nvidia.com/gpu.shared) on two g5.12xlarge nodes, 4 GPUs × 4
// replicas each, scheduled one pod at a time by a real kube-scheduler with the
// deployed gpu-scheduler profile and extender settings. The learnt workload
// shapes are one replica only, so fragmentation alone sees nothing to choose
// between; the sharing term must still fill the GPUs of the node in use before
// opening the untouched one. Asserted on spec.nodeName only.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { GFD_G5_RENAMED, RENAMED_RESOURCES } from './real-node-labels';

const harness = e2eHarness();
const { core } = harness;

const CACHE_TTL_MS = 1_000;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let nodes: GpuNode[] = [];

function sharer(name: string): V1Pod {
  return {
    metadata: { name, annotations: { 'gpu.nvidia.com/model': 'A10G' } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu.shared': '1' } } }],
    },
  };
}

beforeAll(async () => {
  // Every bound GPU pod shapes the fragmentation model: start from an empty cluster.
  await harness.resetCluster();
  namespace = await harness.createNamespace('shared-packing');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: `${CACHE_TTL_MS}ms` });
  nodes = await Promise.all(
    [0, 1].map(() => createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', labels: GFD_G5_RENAMED, resources: RENAMED_RESOURCES })),
  );
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('sharers only, through the real kube-scheduler', () => {
  it('13 sharers fill the node in use (GPU after GPU) and leave the other node untouched', async () => {
    // 4 replicas per GPU: the 5th, 9th and 13th sharer each open a GPU, and could as well open the untouched node
    // (a coin toss each without the sharing term: 1 in 8 to pass by luck).
    const placed: string[] = [];
    for (let i = 0; i < 13; i++) {
      const name = `sharer-${i}`;
      await core.createNamespacedPod({ namespace, body: sharer(name) });
      placed.push(await waitForPodScheduled(core, { namespace, name }, 60_000));
      // The next pod is decided with this one bound.
      await extender?.waitForSnapshot(`show ${name} bound`, (snapshot) => snapshot.podsInNamespace(namespace).some((pod) => pod.name === name));
    }
    expect(nodes.map((n) => n.name)).toContain(placed[0]);
    expect(placed).toEqual(placed.map(() => placed[0]));
    // Each placement was the extender's decision over both nodes, always answered.
    expect(extender?.filterDecisionsOf(namespace, 'sharer-12')[0]).toMatchObject({ mode: 'NodeNames', candidates: 2, kept: 2 });
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
