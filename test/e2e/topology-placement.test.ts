// Ten p4d.24xlarge nodes with the EKS network-topology
// labels, in three bottom network nodes of 2, 3 and 5 nodes (the first two
// under one layer-2 node), scheduled one pod at a time by a real
// kube-scheduler with the deployed gpu-scheduler profile and extender
// settings. A 3-rank job with gpu.nvidia.com/group-size: "3" must land whole
// in the one block that holds it best (3 nodes). Every empty node looks alike
// to Fragmentation, and the 2-node block's nodes are idle while the 3-node
// block's are busy, so GpuScore alone would start the job in the 2-node block
// and split it: locality must outweigh that. Single 1-GPU pods created
// between its ranks keep packing onto the node already in use. Asserted on
// spec.nodeName only.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_LAYER_LABELS } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, seedGpuLabels, describeInstanceType, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { markPodRunning, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';

const harness = e2eHarness();
const { core } = harness;

const CACHE_TTL_MS = 1_000;
const BLOCKS = { small: ['top', 'mid-1', 'bottom-small'], fit: ['top', 'mid-1', 'bottom-fit'], big: ['top', 'mid-2', 'bottom-big'] } as const;
// The big block has one node more than the job once the running pod holds part of one: best fit picks "fit".
const BLOCK_SIZES = { small: 2, fit: 3, big: 5 } as const;
/** GPU utilization per block (gpu.nvidia.com/utilization), as the reconciler would write it. */
const UTILIZATION = { small: '0', fit: '90', big: '50' } as const;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const blockOf = new Map<string, keyof typeof BLOCKS>();
let busy: GpuNode | undefined;

function pod(name: string, gpus: number, extra: { labels?: Record<string, string>; annotations?: Record<string, string>; nodeName?: string } = {}): V1Pod {
  return {
    metadata: { name, labels: extra.labels ?? {}, annotations: extra.annotations ?? {} },
    spec: {
      ...(extra.nodeName === undefined ? { schedulerName: GPU_SCHEDULER_NAME } : { nodeName: extra.nodeName }),
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
    },
  };
}

async function schedule(body: V1Pod): Promise<string> {
  const name = body.metadata?.name ?? '';
  await core.createNamespacedPod({ namespace, body });
  const node = await waitForPodScheduled(core, { namespace, name }, 60_000);
  // The next pod is decided with this one bound.
  await extender?.waitForSnapshot(`show ${name} bound`, (snapshot) => snapshot.podsInNamespace(namespace).some((pod) => pod.name === name));
  return node;
}

beforeAll(async () => {
  // Every bound GPU pod shapes the fragmentation model: start from an empty cluster.
  await harness.resetCluster();
  namespace = await harness.createNamespace('topology');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: `${CACHE_TTL_MS}ms` });
  const facts = await describeInstanceType(harness.ec2, 'p4d.24xlarge');
  for (const [block, layers] of Object.entries(BLOCKS) as [keyof typeof BLOCKS, readonly string[]][]) {
    const topology = Object.fromEntries(layers.map((value, i) => [NETWORK_LAYER_LABELS[i] ?? '', value]));
    const created = await Promise.all(
      Array.from({ length: BLOCK_SIZES[block] }, () => createGpuNode(harness.nodeClients, {
          instanceType: 'p4d.24xlarge',
          labels: { ...seedGpuLabels(facts), ...topology },
          annotations: { 'gpu.nvidia.com/utilization': UTILIZATION[block] },
        })),
    );
    for (const node of created) blockOf.set(node.name, block);
    if (block === 'big') busy = created[0];
  }
  // A pod already running on one node of the big block: the single pods' natural place to pack.
  await core.createNamespacedPod({ namespace, body: pod('running', 4, { nodeName: busy?.name ?? '' }) });
  await markPodRunning(core, { namespace, name: 'running' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('whole-job blocks through the real kube-scheduler', () => {
  it('a 3-rank job lands whole in the 3-node block while single pods keep packing elsewhere', async () => {
    const rank = (i: number) =>
      pod(`rank-${i}`, 8, { labels: { job: 'llm' }, annotations: { 'gpu.nvidia.com/peer-selector': 'job=llm', 'gpu.nvidia.com/group-size': '3' } });
    const ranks: string[] = [];
    const singles: string[] = [];
    for (let i = 0; i < 3; i++) {
      ranks.push(await schedule(rank(i)));
      singles.push(await schedule(pod(`single-${i}`, 1)));
    }
    expect(ranks.map((n) => blockOf.get(n))).toEqual(['fit', 'fit', 'fit']);
    expect(new Set(ranks).size).toBe(3);
    expect(singles).toEqual([busy?.name, busy?.name, busy?.name]);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
