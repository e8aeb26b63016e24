// The extender lists nodes and pods in kube-apiserver's protobuf encoding and
// reads only the fields it uses (lambdas/kube/protobuf). Against the real
// kube-apiserver, with nodes as Karpenter, GPU Feature Discovery and the
// device plugin (time-slicing, renamed shared resource, MIG mixed) leave them
// and pods with sidecars, init containers, pod overhead from a RuntimeClass,
// pod-level resources and a kubelet-style status, asserts that:
// - the API server really answered protobuf (the item reader ran on every item);
// - every field the readers keep equals the JSON listing's, and the NodeInfo
//   and PodInfo built from the two listings are the same;
// - pages follow each other (continue read from the protobuf head);
// - an error answer in protobuf (a metav1.Status) gives the usual KubeApiError.
import type { V1Pod } from '@kubernetes/client-node';
import { NodeV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttpClient, KubeResponseInfo } from '../../lambdas/kube/kube-http-client';
import { createKubeHttpClient, KubeApiError } from '../../lambdas/kube/kube-http-client';
import { readNode, readPod } from '../../lambdas/kube/protobuf/core-v1-readers';
import type { ProtobufItemReader } from '../../lambdas/kube/protobuf/kube-protobuf';
import { BOUND_POD_FIELD_SELECTOR } from '../../lambdas/cluster-state/kubernetes-cluster-source';
import { nodeInfoFromKubernetes, podInfoFromKubernetes } from '../../lambdas/scheduling';
import { e2eHarness } from './support/e2e-context';
import { kubeConnectionFromKubeconfigFile } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { markPodRunning } from '../../local/nodes/pod-status';
import { GFD_G5_RENAMED, GFD_G5_TIME_SLICED, GFD_P4D, GFD_P4D_MIG_MIXED, KARPENTER_P4D, MIG_MIXED_RESOURCES, RENAMED_RESOURCES } from './real-node-labels';

const harness = e2eHarness();
const { core } = harness;
const kubeconfig = harness.info.controlPlane.lambdaKubeconfigs.extender;
const RUNTIME_CLASS = 'protobuf-e2e-kata';

let namespace = '';
const nodes: GpuNode[] = [];
const responses: KubeResponseInfo[] = [];
let kube: KubeHttpClient;

type Json = Record<string, unknown>;

/** The paths the readers keep, as the JSON listing has them: what podInfoFromKubernetes, podDemand and nodeInfoFromKubernetes read. */
function keptOfPod(pod: Json): Json {
  const metadata = (pod.metadata ?? {}) as Json;
  const spec = (pod.spec ?? {}) as Json;
  const status = (pod.status ?? {}) as Json;
  const container = (c: Json): Json => pick({ name: c.name, resources: c.resources && pick({ limits: (c.resources as Json).limits, requests: (c.resources as Json).requests }), restartPolicy: c.restartPolicy });
  return pick({
    metadata: keptMeta(metadata),
    spec: pick({
      containers: (spec.containers as Json[] | undefined)?.map(container),
      initContainers: (spec.initContainers as Json[] | undefined)?.map(container),
      nodeName: spec.nodeName,
      overhead: spec.overhead,
      resources: spec.resources && pick({ limits: (spec.resources as Json).limits, requests: (spec.resources as Json).requests }),
    }),
    status: pick({ phase: status.phase }),
  });
}

function keptOfNode(node: Json): Json {
  const status = (node.status ?? {}) as Json;
  // Conditions keep what the health model reads (the node monitoring agent's type, status, reason and message).
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Json[]).map((c) => pick({ type: c.type, status: c.status, reason: c.reason, message: c.message })) : undefined;
  return pick({ metadata: keptMeta((node.metadata ?? {}) as Json), status: pick({ capacity: status.capacity, allocatable: status.allocatable, conditions }) });
}

function keptMeta(metadata: Json): Json {
  return pick({ name: metadata.name, namespace: metadata.namespace, uid: metadata.uid, resourceVersion: metadata.resourceVersion, labels: metadata.labels, annotations: metadata.annotations });
}

/** Drops undefined values, as a decoded object has no key for an absent field. */
function pick(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

/** Every item of every page, and how many items went through the protobuf reader. */
async function listAll(path: string, options: { fieldSelector?: string; limit?: number; item?: ProtobufItemReader }) {
  let read = 0;
  const counting: ProtobufItemReader | undefined =
    options.item &&
    ((pbf) => {
      read++;
      return options.item?.(pbf);
    });
  const items: Json[] = [];
  let pages = 0;
  for await (const page of kube.listPages(path, { limit: options.limit ?? 500, ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}), ...(counting ? { protobufItem: counting } : {}) })) {
    pages++;
    items.push(...(page.items as Json[]));
  }
  return { items, read, pages };
}

function byKey(items: readonly Json[]): Map<string, Json> {
  return new Map(items.map((item) => [String((item.metadata as Json).uid), item]));
}

function pod(name: string, nodeName: string, spec: Partial<NonNullable<V1Pod['spec']>>, labels: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels: { app: 'protobuf', ...labels }, annotations: { 'example.com/owner': 'team-a', 'controller.kubernetes.io/pod-deletion-cost': '250' } },
    spec: { nodeName, containers: [{ name: 'main', image: 'cuda' }], ...spec },
  };
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('protobuf-lists');
  const nodeV1 = harness.kubeConfig.makeApiClient(NodeV1Api);
  await nodeV1.deleteRuntimeClass({ name: RUNTIME_CLASS }).catch(() => undefined);
  // The RuntimeClass admission plugin copies this overhead into each pod that names the class.
  await nodeV1.createRuntimeClass({ body: { metadata: { name: RUNTIME_CLASS }, handler: 'kata', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } } } });

  nodes.push(
    await createGpuNode(harness.nodeClients, { instanceType: 'p4d.24xlarge', labels: { ...KARPENTER_P4D, ...GFD_P4D }, annotations: { 'gpu.nvidia.com/utilization': '37.5' } }),
    await createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', labels: GFD_G5_TIME_SLICED, resources: { 'nvidia.com/gpu': '16' } }),
    await createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', labels: GFD_G5_RENAMED, resources: RENAMED_RESOURCES }),
    await createGpuNode(harness.nodeClients, { instanceType: 'p4d.24xlarge', labels: GFD_P4D_MIG_MIXED, resources: MIG_MIXED_RESOURCES }),
    await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', seedLabels: true }),
  );
  const [p4d, sliced, renamed, mig, g5] = nodes.map((n) => n.name) as [string, string, string, string, string];
  const gpu = (n: string) => ({ limits: { 'nvidia.com/gpu': n }, requests: { cpu: '4', memory: '32Gi' } });
  const bodies: V1Pod[] = [
    pod('trainer', p4d, { containers: [{ name: 'main', image: 'cuda', resources: gpu('4') }] }, { 'gpu.nvidia.com/job': 'llm' }),
    pod('with-sidecar', p4d, {
      initContainers: [
        { name: 'fetch', image: 'busybox', resources: { requests: { cpu: '2', memory: '1Gi' } } },
        { name: 'proxy', image: 'envoy', restartPolicy: 'Always', resources: { requests: { cpu: '500m', memory: '256Mi' } } },
      ],
      containers: [{ name: 'main', image: 'cuda', resources: gpu('2') }],
    }),
    pod('sliced', sliced, { containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '3' } } }] }),
    pod('renamed', renamed, { containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu.shared': '2' } } }] }),
    pod('mig', mig, { containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/mig-1g.5gb': '2', 'nvidia.com/mig-3g.20gb': '1' } } }] }),
    pod('overhead', g5, { runtimeClassName: RUNTIME_CLASS, containers: [{ name: 'main', image: 'cuda', resources: gpu('1') }] }),
    pod('pod-level', g5, { resources: { requests: { cpu: '3', memory: '8Gi' }, limits: { cpu: '3', memory: '8Gi' } }, containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }),
    pod('no-resources', g5, {}),
  ];
  for (let i = 0; i < 12; i++) bodies.push(pod(`daemon-${i}`, nodes[i % nodes.length]?.name ?? '', { containers: [{ name: 'agent', image: 'fluent-bit', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] }, { app: 'daemon' }));
  for (const body of bodies) {
    await core.createNamespacedPod({ namespace, body });
    // Running with the conditions and container statuses a kubelet reports: fields the readers must skip.
    await markPodRunning(core, { namespace, name: body.metadata?.name ?? '' });
  }
  kube = createKubeHttpClient(await kubeConnectionFromKubeconfigFile(kubeconfig), { onResponse: (r) => responses.push(r) });
});

afterAll(async () => {
  await harness.kubeConfig.makeApiClient(NodeV1Api).deleteRuntimeClass({ name: RUNTIME_CLASS }).catch(() => undefined);
  await harness.tearDown(namespace);
});

describe('protobuf lists from the real kube-apiserver', () => {
  it('pods: every kept field equals the JSON listing, item by item, and so does every PodInfo', async () => {
    const json = await listAll('/api/v1/pods', { fieldSelector: BOUND_POD_FIELD_SELECTOR });
    const protobuf = await listAll('/api/v1/pods', { fieldSelector: BOUND_POD_FIELD_SELECTOR, item: readPod });
    expect(json.items).toHaveLength(20);
    expect(protobuf.read).toBe(20);
    expect(json.read).toBe(0);

    const jsonByUid = byKey(json.items);
    expect([...byKey(protobuf.items).keys()].sort()).toEqual([...jsonByUid.keys()].sort());
    for (const item of protobuf.items) {
      const fromJson = jsonByUid.get(String((item.metadata as Json).uid)) ?? {};
      expect(item, String((item.metadata as Json).name)).toEqual(keptOfPod(fromJson));
      expect(podInfoFromKubernetes(item)).toEqual(podInfoFromKubernetes(fromJson));
    }
    // What these pods are meant to show made it through (else the comparisons above prove little).
    const named = new Map(protobuf.items.map((p) => [(p.metadata as Json).name, p]));
    expect(((named.get('overhead')?.spec as Json).overhead as Json).cpu).toBe('250m');
    expect((((named.get('pod-level')?.spec as Json).resources as Json).requests as Json).cpu).toBe('3');
    expect(((named.get('with-sidecar')?.spec as Json).initContainers as Json[])[1]?.restartPolicy).toBe('Always');
    expect(podInfoFromKubernetes(named.get('mig'))?.demand.gpuResource).toMatch(/^nvidia.com\/mig-/);
    expect(podInfoFromKubernetes(named.get('with-sidecar'))?.demand.cpuMilli).toBe(4500);
  });

  it('nodes: every kept field equals the JSON listing, and so does every NodeInfo (Karpenter, GFD, time-slicing, renamed, MIG mixed)', async () => {
    const json = await listAll('/api/v1/nodes', {});
    const protobuf = await listAll('/api/v1/nodes', { item: readNode });
    expect(protobuf.read).toBe(nodes.length);
    const jsonByName = new Map(json.items.map((n) => [(n.metadata as Json).name, n]));
    for (const item of protobuf.items) {
      const fromJson = jsonByName.get((item.metadata as Json).name) ?? {};
      expect(item).toEqual(keptOfNode(fromJson));
      expect(nodeInfoFromKubernetes(item)).toEqual(nodeInfoFromKubernetes(fromJson));
    }
    const infos = protobuf.items.map((n) => nodeInfoFromKubernetes(n));
    expect(infos.map((n) => n?.gpuSharing?.strategy).filter(Boolean).sort()).toEqual(['time-slicing', 'time-slicing']);
    expect(infos.find((n) => n?.mig !== undefined)).toBeDefined();
    expect(infos.find((n) => n?.gpuUtilization === 37.5)).toBeDefined();
  });

  it('pages of 3 follow each other by the continue token of each protobuf head, and the smaller wire size shows', async () => {
    const from = responses.length;
    const paged = await listAll('/api/v1/pods', { fieldSelector: BOUND_POD_FIELD_SELECTOR, limit: 3, item: readPod });
    expect(paged.pages).toBe(7);
    expect(new Set(paged.items.map((p) => (p.metadata as Json).uid)).size).toBe(20);
    const protobufBytes = responses.slice(from).reduce((n, r) => n + r.bytes, 0);
    const jsonFrom = responses.length;
    await listAll('/api/v1/pods', { fieldSelector: BOUND_POD_FIELD_SELECTOR, limit: 3 });
    const jsonBytes = responses.slice(jsonFrom).reduce((n, r) => n + r.bytes, 0);
    expect(protobufBytes).toBeLessThan(jsonBytes);
  });

  it('an error answered in protobuf (a metav1.Status) is a KubeApiError with its code, reason and message', async () => {
    // The extender's identity may list nodes and pods, not secrets.
    const error: unknown = await kube.list('/api/v1/secrets', { protobufItem: readPod }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect((error as Error).message).toMatch(/403 Forbidden: secrets is forbidden: User .* cannot list resource "secrets"/);
  });
});
