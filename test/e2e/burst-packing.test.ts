// A job's 16 one-GPU pods created at once pack onto the same nodes
// as the same pods created one by one, through the real kube-scheduler with
// the deployed profile, extender settings and cache TTL. In the burst the
// extender's cache does not see the members bound moments earlier, so every
// empty node looks alike to it; packing then rests on its stable preference
// among equal nodes (toExtenderScores' tie-break) while kube-scheduler, which
// counts GPUs itself (ignoredByScheduler: false), drops a node once it is
// full. Asserted on spec.nodeName only, plus the extender's own rankings to
// show the burst really was scored against a stale cache.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;

const JOB_SIZE = 16;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let nodes: GpuNode[] = [];

function member(prefix: string, rank: number): V1Pod {
  return {
    metadata: { name: `${prefix}-${rank}`, labels: { job: prefix } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

/** Pods per node, e.g. { node-a: 8, node-b: 8 }. */
function countByNode(placements: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const node of placements) counts[node] = (counts[node] ?? 0) + 1;
  return counts;
}

/**
 * Burst members (after the first) whose /prioritize ranking had the best node
 * and the runner-up on equal scores: with every member bound so far in view,
 * the node holding them would lead on packing instead.
 */
function scoredAsIfEmpty(prefix: string): number {
  return (extender?.decisions ?? []).filter(
    (d) =>
      d.verb === 'prioritize' &&
      d.summary.pod.startsWith(`${namespace}/${prefix}-`) &&
      d.summary.pod !== `${namespace}/${prefix}-0` &&
      d.summary.ranking?.runnerUp !== undefined &&
      d.summary.ranking.best.total === d.summary.ranking.runnerUp.total,
  ).length;
}

async function removeJob(prefix: string): Promise<void> {
  await core.deleteCollectionNamespacedPod({ namespace, labelSelector: `job=${prefix}`, gracePeriodSeconds: 0 });
  await waitFor(`the pods of ${prefix} to be gone`, async () =>
    (await core.listNamespacedPod({ namespace, labelSelector: `job=${prefix}` })).items.length === 0 ? true : undefined,
  );
  await extender?.waitForSnapshot(`hold no pod of ${prefix}`, (snapshot) => !snapshot.podsInNamespace(namespace).some((pod) => pod.labels.job === prefix));
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('burst-packing');
  // The deployed cache TTL (EXTENDER_CACHE_TTL unset): what a burst on EKS is scored against.
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender);
  const facts = await describeInstanceType(harness.ec2, 'p4d.24xlarge');
  // Four identical empty 8-GPU nodes: the job fits on two.
  nodes = await Promise.all([0, 1, 2, 3].map(() => createGpuNode(harness.nodeClients, { instanceType: 'p4d.24xlarge', labels: seedGpuLabels(facts) })));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(() => harness.tearDown(namespace, scheduler, extender));

describe('a burst of one-GPU pods, through the real kube-scheduler', () => {
  it('16 pods created at once use the same nodes, as full, as the same pods created one by one', async () => {
    const names = nodes.map((n) => n.name);

    const oneByOne: string[] = [];
    for (let rank = 0; rank < JOB_SIZE; rank++) {
      await core.createNamespacedPod({ namespace, body: member('serial', rank) });
      oneByOne.push(await waitForPodScheduled(core, { namespace, name: `serial-${rank}` }, 60_000));
      // One by one: the next member is decided with this one in view.
      await extender?.waitForSnapshot(`show serial-${rank} bound`, (snapshot) => snapshot.podsInNamespace(namespace).some((pod) => pod.name === `serial-${rank}`));
    }
    await removeJob('serial');

    await Promise.all([...Array(JOB_SIZE).keys()].map((rank) => core.createNamespacedPod({ namespace, body: member('burst', rank) })));
    const burst = await Promise.all([...Array(JOB_SIZE).keys()].map((rank) => waitForPodScheduled(core, { namespace, name: `burst-${rank}` }, 90_000)));

    const serialCounts = countByNode(oneByOne);
    expect(Object.values(serialCounts), `nodes=${names.join(',')}`).toEqual([8, 8]);
    expect(countByNode(burst), `nodes=${names.join(',')}`).toEqual(serialCounts);
    // The burst was decided on a cache that did not show its first members (else this proves nothing).
    expect(scoredAsIfEmpty('burst')).toBeGreaterThan(0);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
