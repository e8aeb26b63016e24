// The extender's cluster cache against the real kube-apiserver: the first load
// lists nodes and bound pods, later ones only watch from the last resourceVersion.
// Asserts that after pods are created, bound, finished and deleted and nodes are
// added, removed and relabelled, one incremental refresh gives the same snapshot as
// a fresh full list; that a refresh with nothing to catch up reads far fewer bytes
// than the list; and that a finished pod leaves the snapshot.
import type { V1Pod } from '@kubernetes/client-node';
import type { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeResponseInfo } from '../../lambdas/kube/kube-http-client';
import { createKubeHttpClient } from '../../lambdas/kube/kube-http-client';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';
import { readPod } from '../../lambdas/kube/protobuf/core-v1-readers';
import { BOUND_POD_FIELD_SELECTOR, DEFAULT_WATCH_LIMITS, kubernetesClusterSource } from '../../lambdas/cluster-state/kubernetes-cluster-source';
import { WatchedCollection } from '../../lambdas/cluster-state/watched-collection';
import type { PodInfo, Snapshot } from '../../lambdas/scheduling';
import { podInfoFromKubernetes } from '../../lambdas/scheduling';
import { e2eHarness } from './support/e2e-context';
import { kubeConnectionFromKubeconfigFile } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import { markPodRunning } from '../../local/nodes/pod-status';

const harness = e2eHarness();
const { core } = harness;
// The extender's own least-privilege identity: list and watch nodes, pods, ResourceSlices and ResourceClaims, nothing else.
/** Nodes, bound pods, NVIDIA's ResourceSlices and ResourceClaims: this API server serves resource.k8s.io/v1, so each is listed, then watched. */
const COLLECTIONS = 4;
const kubeconfig = harness.info.controlPlane.lambdaKubeconfigs.extender;
/** As EXTENDER_NODE_LABEL_SELECTOR would be set: a node that loses the label leaves the watch. */
const NODE_SELECTOR = 'gpu.nvidia.com/model';

let namespace = '';
const nodes: GpuNode[] = [];

/** A source like the extender's, counting its API calls and the bytes they returned. */
function countedSource() {
  const responses: KubeResponseInfo[] = [];
  const source = kubernetesClusterSource(() => kubeConnectionFromKubeconfigFile(kubeconfig), {
    nodeLabelSelector: NODE_SELECTOR,
    http: { onResponse: (r) => responses.push(r) },
  });
  const since = (from: number) => {
    const seen = responses.slice(from);
    return { lists: seen.filter((r) => !r.watch).length, watches: seen.filter((r) => r.watch).length, bytes: seen.reduce((n, r) => n + r.bytes, 0) };
  };
  return { source, responses, since };
}

/** The extender's pod collection (in JSON: no protobuf item reader), in pages of 10 so a few pods make several pages. */
const BOUND_PODS_IN_PAGES_OF_10 = {
  path: '/api/v1/pods',
  fieldSelector: BOUND_POD_FIELD_SELECTOR,
  pageSize: 10,
  key: (pod: unknown) => podInfoFromKubernetes(pod)?.uid,
  reduce: podInfoFromKubernetes,
};

/** What a snapshot says, order-independent (pods are bound in the order they became known). */
function view(snapshot: Snapshot) {
  const nodeViews = snapshot.nodes
    .map((n) => ({
      name: n.name,
      model: n.gpuModel,
      gpus: n.gpuCount,
      freeWholeGpus: n.freeWholeGpus,
      freeGpuMilli: n.freeGpuMilli,
      requestedCpuMilli: n.requestedCpuMilli,
      pods: n.pods.map((p) => p.uid).sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const podViews = snapshot.pods.map((p) => `${p.namespace}/${p.name} on ${p.nodeName} ${JSON.stringify(p.labels)}`).sort();
  return { nodes: nodeViews, pods: podViews };
}

async function gpuNode(instanceType: string): Promise<GpuNode> {
  const facts = await describeInstanceType(harness.ec2, instanceType);
  const node = await createGpuNode(harness.nodeClients, { instanceType, labels: seedGpuLabels(facts) });
  nodes.push(node);
  return node;
}

function podBody(name: string, gpus: number, target: { nodeName: string } | { schedulerName: string }, labels: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels },
    spec: { ...target, containers: [{ name: 'main', image: 'cuda', resources: { requests: { cpu: '100m' }, limits: { 'nvidia.com/gpu': String(gpus) } } }] },
  };
}

async function runningPod(name: string, nodeName: string, gpus = 1): Promise<void> {
  await core.createNamespacedPod({ namespace, body: podBody(name, gpus, { nodeName }, { app: 'refresh' }) });
  await markPodRunning(core, { namespace, name });
}

async function setPhase(name: string, phase: 'Succeeded' | 'Failed'): Promise<void> {
  await core.patchNamespacedPodStatus({ namespace, name, body: { status: { phase } } }, MERGE_PATCH_OPTIONS);
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('cluster-refresh');
  const [a, b, c] = [await gpuNode('p4d.24xlarge'), await gpuNode('p4d.24xlarge'), await gpuNode('g5.12xlarge')];
  // Enough bound pods that the list is clearly bigger than any single watch event.
  for (let i = 0; i < 24; i++) await runningPod(`seed-${i}`, [a, b, c][i % 3]?.name ?? '', 0);
  await runningPod('gpu-a', a?.name ?? '', 2);
  await runningPod('gpu-c', c?.name ?? '', 1);
});

afterAll(async () => {
  await harness.tearDown(namespace);
});

describe('the extender cluster cache against the real kube-apiserver', () => {
  it('one incremental refresh after pods and nodes changed equals a fresh full list, and only watched', async () => {
    const { source, since } = countedSource();
    const first = await source.load();
    const firstView = view(first);
    expect(firstView.pods).toHaveLength(26);
    expect(firstView.nodes.map((n) => n.name).sort()).toEqual(nodes.map((n) => n.name).sort());

    const [a, b, c] = nodes;
    if (!a || !b || !c) throw new Error('setup created no nodes');
    // Pods: one created bound, one created pending and then bound through the binding subresource
    // (as kube-scheduler binds), one modified (labels), one deleted, one finished.
    await runningPod('new-bound', b.name, 4);
    await core.createNamespacedPod({ namespace, body: podBody('bound-later', 1, { schedulerName: 'nobody' }) });
    await core.createNamespacedPodBinding({ namespace, name: 'bound-later', body: { metadata: { name: 'bound-later' }, target: { kind: 'Node', name: c.name } } });
    await core.patchNamespacedPod({ namespace, name: 'seed-1', body: { metadata: { labels: { app: 'relabelled' } } } }, MERGE_PATCH_OPTIONS);
    await core.deleteNamespacedPod({ namespace, name: 'seed-2', gracePeriodSeconds: 0 });
    await setPhase('gpu-a', 'Failed');
    // Nodes: one added, one without pods removed, one relabelled out of the selector, one relabelled in place.
    const added = await gpuNode('g5.xlarge');
    const empty = await gpuNode('g5.xlarge');
    await deleteGpuNode(harness.nodeClients, empty);
    nodes.splice(nodes.indexOf(empty), 1);
    await core.patchNode({ name: a.name, body: { metadata: { labels: { [NODE_SELECTOR]: null } } } }, MERGE_PATCH_OPTIONS);
    await core.patchNode({ name: b.name, body: { metadata: { labels: { [NODE_SELECTOR]: 'A100X' } } } }, MERGE_PATCH_OPTIONS);

    const callsBefore = since(0);
    const incremental = await source.load();
    const refresh = since(callsBefore.lists + callsBefore.watches);
    expect(refresh.lists).toBe(0);
    expect(refresh.watches).toBe(COLLECTIONS);

    const fresh = await countedSource().source.load();
    expect(view(incremental)).toEqual(view(fresh));
    // The changes are really there (not two equally stale views)…
    const names = view(incremental).nodes.map((n) => n.name);
    expect(names).toContain(added.name);
    expect(names).not.toContain(empty.name);
    expect(names).not.toContain(a.name);
    expect(incremental.getNode(b.name)?.gpuModel).toBe('A100X');
    expect(incremental.getNode(b.name)?.freeWholeGpus).toBe(8 - 4);
    const pods = view(incremental).pods.join('\n');
    expect(pods).toContain(`${namespace}/bound-later on ${c.name}`);
    expect(pods).toContain(`${namespace}/seed-1 on ${b.name} {"app":"relabelled",`);
    expect(pods).not.toContain(`${namespace}/seed-2 `);
    expect(pods).not.toContain(`${namespace}/gpu-a `);
    // …and the snapshot served before the refresh was not touched by it.
    expect(view(first)).toEqual(firstView);
  });

  it('a pod that Succeeded leaves the snapshot (the watch sends DELETED when it stops matching the field selector)', async () => {
    const { source, since } = countedSource();
    // The g5.12xlarge: still labelled, 2 of its 4 GPUs free.
    const node = nodes[2];
    if (!node) throw new Error('setup created no nodes');
    await runningPod('finishes', node.name, 1);
    const before = await source.load();
    const freeBefore = before.getNode(node.name)?.freeWholeGpus ?? -1;
    expect(before.pods.map((p) => p.name)).toContain('finishes');

    await setPhase('finishes', 'Succeeded');
    const listed = since(0).lists;
    const after = await source.load();
    expect(since(0).lists).toBe(listed);
    expect(after.pods.map((p) => p.name)).not.toContain('finishes');
    expect(after.getNode(node.name)?.freeWholeGpus).toBe(freeBefore + 1);
  });

  it('a refresh with nothing to catch up reads far fewer bytes than the full list and keeps the snapshot', async () => {
    const { source, since } = countedSource();
    const first = await source.load();
    const full = since(0);
    expect(full).toMatchObject({ lists: COLLECTIONS, watches: 0 });

    const again = await source.load();
    const refresh = since(COLLECTIONS);
    expect(refresh).toMatchObject({ lists: 0, watches: COLLECTIONS });
    // A few KB at most (a bookmark, a node status update), against the whole list.
    expect(refresh.bytes).toBeLessThan(full.bytes / 10);
    expect(again).toBe(first);
  });

  it('a protobuf listing reduces each pod as it is decoded, never a page of decoded pods at once, and ends where a JSON listing does', async () => {
    const kube = createKubeHttpClient(await kubeConnectionFromKubeconfigFile(kubeconfig));
    let decoded = 0;
    let reduced = 0;
    let mostPending = 0;
    const query = BOUND_PODS_IN_PAGES_OF_10;
    const counted = {
      ...query,
      protobufItem: (pbf: PbfReader) => {
        decoded++;
        mostPending = Math.max(mostPending, decoded - reduced);
        return readPod(pbf);
      },
      reduce: (pod: unknown) => {
        reduced++;
        return podInfoFromKubernetes(pod);
      },
    };
    const inProtobuf = new WatchedCollection<PodInfo>(counted, DEFAULT_WATCH_LIMITS);
    expect((await inProtobuf.sync(kube)).commit()).toBe(true);
    const inJson = new WatchedCollection<PodInfo>(query, DEFAULT_WATCH_LIMITS);
    (await inJson.sync(kube)).commit();

    // Several pages of 10 went by, and no decoded pod waited for another to be decoded.
    expect(decoded).toBeGreaterThan(20);
    expect(reduced).toBe(decoded);
    expect(mostPending).toBe(1);
    const names = (c: WatchedCollection<PodInfo>) => [...c.values()].map((p) => `${p.namespace}/${p.name} on ${p.nodeName} ${p.uid}`).sort();
    expect(names(inProtobuf)).toEqual(names(inJson));
  });

  it('resuming from version 1 ends at the same pods as a list: by replaying the history, or by a list after 410 Gone', async () => {
    // Which of the two depends on what ran before in this control plane: its watch cache drops
    // events only beyond its capacity and once they are older than 75 s, and etcd compaction
    // cannot be triggered at run time. A fresh API server replays everything since version 1;
    // after the other e2e files it answers 410 Gone. The fallback is therefore also tested,
    // deterministically, against an in-process fake
    // (test/unit/lambdas/cluster-state/kubernetes-cluster-source.test.ts).
    const kube = createKubeHttpClient(await kubeConnectionFromKubeconfigFile(kubeconfig));
    const query = BOUND_PODS_IN_PAGES_OF_10;
    const resumed = new WatchedCollection<PodInfo>(query, DEFAULT_WATCH_LIMITS, { items: new Map(), resourceVersion: '1' });
    const sync = await resumed.sync(kube);
    if (sync.how === 'listed') expect(sync.relistReason).toMatch(/410|too old resource version/i);
    else expect(sync.relistReason).toBeUndefined();
    expect(sync.commit()).toBe(true);
    expect(Number(resumed.resourceVersion)).toBeGreaterThan(1);
    const listed = new WatchedCollection<PodInfo>(query, DEFAULT_WATCH_LIMITS);
    const listing = await listed.sync(kube);
    expect(listing.how).toBe('listed');
    listing.commit();
    const names = (c: WatchedCollection<PodInfo>) => [...c.values()].map((p) => `${p.namespace}/${p.name} on ${p.nodeName}`).sort();
    expect(names(resumed)).toEqual(names(listed));
    expect(names(resumed).length).toBeGreaterThan(20);
  });
});
