// Kueue's Topology Aware Scheduling (TAS) and the extender's packing,
// composed, on nine p4d.24xlarge nodes in three bottom network blocks of 2, 3
// and 4 nodes (EKS's topology.k8s.aws/network-node-layer-1..3 labels), one
// node of the 3-node block half used by a pod Kueue does not manage. Jobs ask
// for one bottom block (`kueue.x-k8s.io/podset-required-topology:
// topology.k8s.aws/network-node-layer-3`) and go through one of two queues:
// - `blocks`: a flavor whose Topology stops at layer 3. Kueue picks the block
//   (best fit: the smallest that holds the job) and narrows the pods to it by
//   node selector; inside it the extender's scoring picks each pod's node.
// - `nodes`: a flavor whose Topology adds kubernetes.io/hostname. Kueue picks
//   each pod's node itself; the extender can only confirm or refuse it.
// Both are best-fit packers, so they agree on the same job. They disagree
// where Kueue cannot see what the extender sees: a node whose GPU labels
// contradict each other is a full node to Kueue and unusable to the extender
// (InvalidNodeData). Kueue then starts the job half-way, and waitForPodsReady
// is what takes it back: past its timeout Kueue evicts the workload, suspends
// the Job and its pods go, releasing the GPUs the half job held.
import { BatchV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTNAME_LABEL, kueueClusterQueue, kueueLocalQueue, kueueResourceFlavor, kueueTopology, NETWORK_TOPOLOGY_LEVELS } from '../../cdk/lib/kueue/kueue-objects';
import { unschedulableMessage } from '../../lambdas/scheduling/pending-gpu-pods';
import { POD_ANNOTATION } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, describeInstanceType, seedGpuLabels } from '../../local/nodes/gpu-nodes';
import type { Kueue } from '../../local/addons/kueue';
import type { ManagedProcess } from '../../local/common/managed-process';
import { finishTerminatingPods, markPodRunning } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { condition, createObjects, finishPods, gpuJob, gpusHeld, jobPods, readJob, runPods, waitForJobBound, waitForWorkloadCondition, workloadOf } from './kueue-fixtures';
import { GFD_P5 } from './real-node-labels';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, kubeConfig } = harness;

const INSTANCE_TYPE = 'p4d.24xlarge';
const BLOCKS = { small: ['top', 'mid-1', 'bottom-small'], fit: ['top', 'mid-1', 'bottom-fit'], big: ['top', 'mid-2', 'bottom-big'] } as const;
type Block = keyof typeof BLOCKS;
const BLOCK_SIZES: Record<Block, number> = { small: 2, fit: 3, big: 4 };
const BLOCK_LEVEL = NETWORK_TOPOLOGY_LEVELS[2] ?? '';
const REQUIRED_BLOCK = { 'kueue.x-k8s.io/podset-required-topology': BLOCK_LEVEL };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let kueue: Kueue | undefined;
let namespace = '';
const blockOf = new Map<string, Block>();
const nodesIn = (block: Block): string[] => [...blockOf].filter(([, b]) => b === block).map(([node]) => node);

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('kueue-topology');
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1000ms' });
  const facts = await describeInstanceType(harness.ec2, INSTANCE_TYPE);
  for (const [block, layers] of Object.entries(BLOCKS) as [Block, readonly string[]][]) {
    const topology = Object.fromEntries(layers.map((value, i) => [NETWORK_TOPOLOGY_LEVELS[i] ?? '', value]));
    for (let i = 0; i < BLOCK_SIZES[block]; i++) blockOf.set((await createGpuNode(harness.nodeClients, { instanceType: INSTANCE_TYPE, labels: { ...seedGpuLabels(facts), ...topology } })).name, block);
  }
  // Half of one node of the 3-node block, held by a pod Kueue does not manage (it counts it all the same).
  const fours = { 'nvidia.com/gpu': '4' };
  await core.createNamespacedPod({ namespace, body: { metadata: { name: 'other' }, spec: { nodeName: nodesIn('fit')[0] ?? '', containers: [{ name: 'main', image: 'cuda', resources: { requests: fours, limits: fours } }] } } });
  await markPodRunning(core, { namespace, name: 'other' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  // A short wait for all pods Ready, so the last test sees Kueue take a half-started job back.
  kueue = await harness.startKueue({ waitForPodsReady: { timeout: '30s', blockAdmission: true } });
  await createObjects(kubeConfig, [
    kueueTopology('eks-blocks', false),
    kueueTopology('eks-nodes', true),
    kueueResourceFlavor({ instanceType: INSTANCE_TYPE, name: 'p4d-blocks', topologyName: 'eks-blocks' }),
    kueueResourceFlavor({ instanceType: INSTANCE_TYPE, name: 'p4d-nodes', topologyName: 'eks-nodes' }),
    kueueClusterQueue({ name: 'blocks', quotas: [{ instanceType: INSTANCE_TYPE, flavor: 'p4d-blocks', gpus: 72 }] }),
    kueueClusterQueue({ name: 'nodes', quotas: [{ instanceType: INSTANCE_TYPE, flavor: 'p4d-nodes', gpus: 72 }] }),
    kueueLocalQueue('blocks', namespace, 'blocks'),
    kueueLocalQueue('nodes', namespace, 'nodes'),
  ]);
}, 180_000);

afterAll(() => harness.tearDown(namespace, scheduler, kueue, extender), 120_000);

const jobs = () => kubeConfig.makeApiClient(BatchV1Api);

/** Pods per node, most first (which node is which does not matter between two empty nodes). */
function podsPerNode(pods: readonly V1Pod[]): number[] {
  const counts = new Map<string, number>();
  for (const pod of pods) counts.set(pod.spec?.nodeName ?? '', (counts.get(pod.spec?.nodeName ?? '') ?? 0) + 1);
  return [...counts.values()].sort((a, b) => b - a);
}

/** Runs a block-bound Job to completion through `queue`; returns its admission and its bound pods. */
async function runToCompletion(name: string, queue: 'blocks' | 'nodes', pods: number, gpusPerPod: number, podAnnotations: Record<string, string> = {}) {
  await jobs().createNamespacedJob({ namespace, body: gpuJob({ name, queue, pods, gpusPerPod, podAnnotations: { ...REQUIRED_BLOCK, ...podAnnotations } }) });
  const admitted = await waitForWorkloadCondition(kubeConfig, namespace, name, 'Admitted', 'True');
  const bound = await waitForJobBound(core, namespace, name, pods);
  await runPods(core, namespace, bound);
  await waitForWorkloadCondition(kubeConfig, namespace, name, 'PodsReady', 'True');
  await finishPods(core, namespace, bound);
  await waitForWorkloadCondition(kubeConfig, namespace, name, 'Finished', 'True');
  return { assignment: admitted.status?.admission?.podSetAssignments[0]?.topologyAssignment, bound };
}

describe('Kueue narrows to a network block, the extender packs inside it', () => {
  it('block-level topology: Kueue picks the smallest block that holds the job, the extender packs its pods onto the fewest nodes', async () => {
    // The job names its pods as peers (docs/kueue.md, "Both compose"): without that, Fragmentation judges each
    // pod alone and, on a snapshot that already holds two of them, may put the third on an empty node.
    const peers = { [POD_ANNOTATION.peerSelector]: 'batch.kubernetes.io/job-name=packed-blocks', [POD_ANNOTATION.groupSize]: '4' };
    const { assignment, bound } = await runToCompletion('packed-blocks', 'blocks', 4, 2, peers);
    expect(assignment?.levels).toEqual([...NETWORK_TOPOLOGY_LEVELS]);
    for (const pod of bound) expect(pod.spec?.nodeSelector?.[BLOCK_LEVEL]).toBe('bottom-small');
    expect(new Set(bound.map((p) => blockOf.get(p.spec?.nodeName ?? '')))).toEqual(new Set(['small']));
    // Four 2-GPU pods on one node: the extender's NetworkLocality, not kube-scheduler's spreading (off in the GPU profile).
    expect(podsPerNode(bound)).toEqual([4]);
    const ranked = extender?.decisions.filter((d) => d.verb === 'prioritize' && d.summary.pod.startsWith(`${namespace}/packed-blocks-`)) ?? [];
    expect(ranked.length).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('node-level topology: Kueue picks the nodes itself and they are the ones the extender packs onto', async () => {
    const viaNodes = await runToCompletion('packed-nodes', 'nodes', 3, 4);
    expect(viaNodes.assignment?.levels).toEqual([HOSTNAME_LABEL]);
    for (const pod of viaNodes.bound) expect(pod.spec?.nodeSelector?.[HOSTNAME_LABEL]).toBe(pod.spec?.nodeName);
    const viaBlocks = await runToCompletion('spread-blocks', 'blocks', 3, 4);
    // The same job the same way: 2 + 1 pods over two nodes of the smallest block.
    expect(podsPerNode(viaNodes.bound)).toEqual([2, 1]);
    expect(podsPerNode(viaBlocks.bound)).toEqual([2, 1]);
    for (const { bound } of [viaNodes, viaBlocks]) expect(new Set(bound.map((p) => blockOf.get(p.spec?.nodeName ?? '')))).toEqual(new Set(['small']));
  }, 180_000);

  it('where they disagree (a node Kueue counts and the extender refuses), the job starts half-way and waitForPodsReady takes it back', async () => {
    // GPU Feature Discovery reports H100s on a node our labels call A100: the extender trusts neither.
    // One empty node in each block that holds exactly two 8-GPU pods (Kueue counts pods that fit: a tie it breaks by name).
    const refused = [nodesIn('small')[0] ?? '', nodesIn('fit')[1] ?? ''];
    for (const name of refused) {
      await core.patchNode({ name, body: { metadata: { labels: { 'nvidia.com/gpu.product': GFD_P5['nvidia.com/gpu.product'] } } } }, MERGE_PATCH_OPTIONS);
    }
    await extender?.waitForSnapshot('find the relabelled nodes\' GPU data impossible', (snapshot) => refused.every((name) => snapshot.getNode(name)?.invalid !== undefined));
    await jobs().createNamespacedJob({ namespace, body: gpuJob({ name: 'half', queue: 'nodes', pods: 2, gpusPerPod: 8, podAnnotations: REQUIRED_BLOCK }) });
    const admitted = await waitForWorkloadCondition(kubeConfig, namespace, 'half', 'Admitted', 'True');
    // To Kueue a block with exactly two free nodes is the best fit: one pod per node, one of them refused.
    expect(admitted.status?.admission?.podSetAssignments[0]?.topologyAssignment?.levels).toEqual([HOSTNAME_LABEL]);
    const [bound] = await waitForJobBound(core, namespace, 'half', 1);
    const stuck = await waitFor('the pod sent to the refused node to be reported unschedulable', async () => {
      const pod = (await jobPods(core, namespace, 'half')).find((p) => !p.spec?.nodeName);
      return pod && /impossible GPU data/.test(unschedulableMessage(pod) ?? '') ? pod : undefined;
    });
    expect(refused).toContain(stuck.spec?.nodeSelector?.[HOSTNAME_LABEL]);
    expect(refused).not.toContain(bound?.spec?.nodeName);
    expect(blockOf.get(bound?.spec?.nodeName ?? '')).toBe(blockOf.get(stuck.spec?.nodeSelector?.[HOSTNAME_LABEL] ?? ''));
    await runPods(core, namespace, bound ? [bound] : []);
    expect(await gpusHeld(core, namespace)).toMatchObject({ half: 8 });

    // Past waitForPodsReady's 30 s Kueue evicts the workload and suspends the Job: its pods go, and their GPUs with them.
    const evicted = await waitForWorkloadCondition(kubeConfig, namespace, 'half', 'Evicted', 'True', 90_000);
    expect(condition(evicted, 'Evicted')?.reason).toBe('PodsReadyTimeout');
    await waitFor('the half-started Job suspended', async () => ((await readJob(kubeConfig, namespace, 'half')).spec?.suspend ? true : undefined));
    // The Job controller deletes them; without kubelets the harness finishes the graceful deletion a kubelet would.
    await waitFor(
      'the half-started Job to hold no GPU',
      async () => {
        await finishTerminatingPods(core, namespace);
        return (await gpusHeld(core, namespace)).half === undefined ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    // Requeued to try again after a backoff (and meanwhile the quota is someone else's to take).
    expect((await workloadOf(kubeConfig, namespace, 'half'))?.status?.requeueState?.count).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
