/*
 * An in-process HTTPS server stands in for the API server here, only for the
 * faults the real kube-apiserver cannot be made to produce on demand: 410 Gone
 * for a watch (a fresh API server's watch cache still holds its whole
 * history), an ERROR event, and a watch that fails while the other succeeds.
 * The list-then-watch path itself runs against the real kube-apiserver in
 * test/e2e/extender-cluster-refresh.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DRA_ABSENT_RECHECK_MS, kubernetesClusterSource } from '../../../../lambdas/cluster-state/kubernetes-cluster-source';
import { DRA_GPUS, nvidiaGpuClaim, nvidiaGpuDevice, nvidiaResourceSlice } from '../../../../local/addons/dra-gpu-driver';
import type { KubeResponseInfo } from '../../../../lambdas/kube/kube-http-client';
import type { SelfSignedCert, TlsServer } from '../kube/tls-fixture';
import { selfSignedCert, startTlsServer } from '../kube/tls-fixture';

type Collection = 'nodes' | 'pods' | 'resourceslices' | 'resourceclaims';
type WatchMode = 'events' | 'gone' | 'error-event' | 'fail';
interface Change {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Record<string, unknown>;
}

/** The fake API server's state: objects by key, a change log per collection to serve watches from. */
class FakeApi {
  rv = 100;
  readonly objects: Record<Collection, Map<string, Record<string, unknown>>> = { nodes: new Map(), pods: new Map(), resourceslices: new Map(), resourceclaims: new Map() };
  readonly log: Record<Collection, Change[]> = { nodes: [], pods: [], resourceslices: [], resourceclaims: [] };
  readonly mode: Record<Collection, WatchMode> = { nodes: 'events', pods: 'events', resourceslices: 'events', resourceclaims: 'events' };
  readonly requests: { collection: Collection; watch: boolean; resourceVersion: string | null }[] = [];
  /** resource.k8s.io/v1 is served (a cluster with DRA); else its requests are answered 404, as an API server without the group does. */
  draServed = false;
  /** The ResourceSlice requests, apart from `requests` (nodes and pods), with their field selector. */
  readonly sliceRequests: { watch: boolean; fieldSelector: string | null; status: number }[] = [];
  /** The ResourceClaim requests, apart from `requests`. */
  readonly claimRequests: { watch: boolean; status: number }[] = [];

  change(collection: Collection, type: Change['type'], object: Record<string, unknown>): void {
    this.rv++;
    const metadata: Record<string, unknown> = { ...(object.metadata as Record<string, unknown>), resourceVersion: String(this.rv) };
    const stored = { ...object, metadata };
    const key = String(metadata.uid ?? `${String(metadata.namespace ?? '')}/${String(metadata.name)}`);
    if (type === 'DELETED') this.objects[collection].delete(key);
    else this.objects[collection].set(key, stored);
    this.log[collection].push({ rv: this.rv, type, object: stored });
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '', 'https://x');
    const last = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
    const collection: Collection = last === 'nodes' || last === 'resourceslices' || last === 'resourceclaims' ? last : 'pods';
    const watch = url.searchParams.get('watch') === '1';
    const from = url.searchParams.get('resourceVersion');
    if (collection === 'resourceslices') {
      this.sliceRequests.push({ watch, fieldSelector: url.searchParams.get('fieldSelector'), status: this.draServed ? 200 : 404 });
      if (!this.draServed) return json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    } else if (collection === 'resourceclaims') {
      this.claimRequests.push({ watch, status: this.draServed ? 200 : 404 });
      if (!this.draServed) return json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    } else {
      this.requests.push({ collection, watch, resourceVersion: from });
    }
    if (!watch) {
      json(res, 200, { kind: 'List', metadata: { resourceVersion: String(this.rv) }, items: [...this.objects[collection].values()] });
      return;
    }
    const mode = this.mode[collection];
    if (mode === 'gone') return json(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: `too old resource version: ${from}` });
    if (mode === 'fail') return json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd is sad' });
    res.writeHead(200, { 'content-type': 'application/json' });
    // As the API server does: the headers go out before any event.
    res.flushHeaders();
    if (mode === 'error-event') {
      res.write(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`);
      return;
    }
    // The backlog at once, then the stream stays open as a real watch does: the client closes it.
    for (const change of this.log[collection].filter((c) => c.rv > Number(from))) res.write(`${JSON.stringify(change)}\n`);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const gpuNode = (name: string, gpus: number, model = 'A100') => ({
  metadata: { name, labels: { 'gpu.nvidia.com/model': model } },
  status: { allocatable: { 'nvidia.com/gpu': String(gpus) } },
});
const gpuPod = (name: string, nodeName: string, gpus: number, phase = 'Running') => ({
  metadata: { name, namespace: 'ml', uid: `uid-${name}` },
  spec: { nodeName, containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
  status: { phase },
});

let cert: SelfSignedCert;
let server: TlsServer;
let url: string;
let api: FakeApi;

beforeAll(async () => {
  cert = selfSignedCert();
  server = await startTlsServer(cert, (req, res) => api.handle(req, res));
  url = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  api = new FakeApi();
  api.change('nodes', 'ADDED', gpuNode('a', 8));
  api.change('nodes', 'ADDED', gpuNode('b', 4));
  api.change('pods', 'ADDED', gpuPod('p1', 'a', 2));
});

function source(responses: KubeResponseInfo[] = [], relists: string[] = [], now?: () => number) {
  return kubernetesClusterSource(() => Promise.resolve({ server: url, caPem: cert.certPem, tokens: { token: () => Promise.resolve('t') } }), {
    ...(now === undefined ? {} : { now }),
    onRelist: (collection, reason) => relists.push(`${collection}: ${reason}`),
    // The fake writes the backlog with the headers; the idle window only has to outlast a busy machine's scheduling.
    watch: { idleMs: 100, maxMs: 2000 },
    http: { onResponse: (r) => responses.push(r) },
  });
}

const requestsSince = (from: number) => api.requests.slice(from).map((r) => `${r.watch ? 'watch' : 'list'} ${r.collection}${r.watch ? ` from ${r.resourceVersion}` : ''}`);

describe('kubernetesClusterSource', () => {
  it('lists once, then only watches from the last version; applies the changes; rebuilds the snapshot only when something changed', async () => {
    const responses: KubeResponseInfo[] = [];
    const cluster = source(responses);
    const first = await cluster.load();
    expect(requestsSince(0).sort()).toEqual(['list nodes', 'list pods']);
    expect(first.getNode('a')?.freeWholeGpus).toBe(6);

    api.change('pods', 'ADDED', gpuPod('p2', 'b', 3));
    api.change('pods', 'MODIFIED', gpuPod('p1', 'a', 2, 'Succeeded'));
    api.change('nodes', 'MODIFIED', gpuNode('a', 8, 'H100'));
    const second = await cluster.load();
    expect(requestsSince(2).sort()).toEqual(['watch nodes from 103', 'watch pods from 103']);
    expect(second).not.toBe(first);
    expect(second.getNode('a')).toMatchObject({ gpuModel: 'H100', freeWholeGpus: 8 });
    expect(second.getNode('b')?.freeWholeGpus).toBe(1);
    expect(second.pods.map((p) => p.name)).toEqual(['p2']);
    // The snapshot served before is as it was.
    expect(first.getNode('a')).toMatchObject({ gpuModel: 'A100', freeWholeGpus: 6 });
    expect(first.pods.map((p) => p.name)).toEqual(['p1']);

    // A status-only change reduces to the same pod: the snapshot is kept. (A list's version is the
    // whole store's, so each collection resumes from its own last event.)
    api.change('pods', 'MODIFIED', { ...gpuPod('p2', 'b', 3), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
    const third = await cluster.load();
    expect(requestsSince(4).sort()).toEqual(['watch nodes from 106', 'watch pods from 105']);
    expect(third).toBe(second);
    expect(await cluster.load()).toBe(second);
    // The hook saw every call: 2 lists, then 2 watches per refresh; nothing to catch up, nothing read.
    // (Past the one ResourceSlice list and the one ResourceClaim list this API server answers 404: it does not serve DRA.)
    const dra = responses.filter((r) => r.request.includes('/apis/resource.k8s.io/'));
    expect(dra.map((r) => `${r.request.split('?')[0] ?? ''} ${r.status}`).sort()).toEqual([
      'GET /apis/resource.k8s.io/v1/resourceclaims 404',
      'GET /apis/resource.k8s.io/v1/resourceslices 404',
    ]);
    const core = responses.filter((r) => !r.request.includes('/apis/resource.k8s.io/'));
    expect(core.map((r) => r.watch)).toEqual([false, false, true, true, true, true, true, true]);
    expect(core.slice(0, 2).every((r) => r.bytes > 100)).toBe(true);
    expect(core.slice(-2).map((r) => r.bytes)).toEqual([0, 0]);
    expect(core.every((r) => r.status === 200 && r.request.startsWith('GET /api/v1/'))).toBe(true);
  });

  it('concurrent loads share one refresh', async () => {
    const cluster = source();
    await cluster.load();
    api.change('pods', 'ADDED', gpuPod('p2', 'b', 1));
    const [x, y] = await Promise.all([cluster.load(), cluster.load()]);
    expect(x).toBe(y);
    expect(requestsSince(2)).toHaveLength(2);
    expect(x.pods.map((p) => p.name).sort()).toEqual(['p1', 'p2']);
  });

  it.each([
    ['410 Gone', 'gone'],
    ['an ERROR event', 'error-event'],
  ] as const)('lists the collection afresh when its watch answers %s, says so, and watches again after', async (_, mode) => {
    const relists: string[] = [];
    const cluster = source([], relists);
    await cluster.load();
    expect(relists).toEqual([]);
    api.change('pods', 'ADDED', gpuPod('p2', 'b', 1));
    api.mode.pods = mode;
    const relisted = await cluster.load();
    expect(requestsSince(2).sort()).toEqual(['list pods', 'watch nodes from 103', 'watch pods from 103']);
    expect(relists).toEqual([expect.stringMatching(/^pods: .*410.*Expired.*too old resource version/)]);
    expect(relisted.pods.map((p) => p.name).sort()).toEqual(['p1', 'p2']);
    api.mode.pods = 'events';
    await cluster.load();
    expect(requestsSince(5).sort()).toEqual(['watch nodes from 103', 'watch pods from 104']);
  });

  it('a watch that fails leaves both collections as they were; the next refresh resumes from the same versions', async () => {
    const cluster = source();
    const first = await cluster.load();
    api.change('nodes', 'MODIFIED', gpuNode('b', 4, 'L40S'));
    api.change('pods', 'ADDED', gpuPod('p2', 'b', 1));
    api.mode.pods = 'fail';
    await expect(cluster.load()).rejects.toThrow(/watch=1.*500 InternalError: etcd is sad/);
    // The nodes watch had delivered its change; it was not applied, so it is asked for again.
    api.mode.pods = 'events';
    const after = await cluster.load();
    expect(requestsSince(2).sort()).toEqual(['watch nodes from 103', 'watch nodes from 103', 'watch pods from 103', 'watch pods from 103']);
    expect(after.getNode('b')).toMatchObject({ gpuModel: 'L40S', freeWholeGpus: 3 });
    expect(first.getNode('b')).toMatchObject({ gpuModel: 'A100', freeWholeGpus: 4 });
  });
});

const draNode = (name: string) => ({ metadata: { name, labels: { 'gpu.nvidia.com/model': 'H100' } }, status: { allocatable: { cpu: '192' } } });

describe('kubernetesClusterSource with ResourceSlices', () => {
  it('lists and watches NVIDIA\'s slices, and a node without nvidia.com/gpu gets its GPUs from them', async () => {
    api.draServed = true;
    api.change('nodes', 'ADDED', draNode('d'));
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('d', 8, DRA_GPUS.h100), metadata: { name: 'd-gpu.nvidia.com-1' } });
    api.change('pods', 'ADDED', gpuPod('p2', 'd', 3));
    const cluster = source();
    const first = await cluster.load();
    expect(api.sliceRequests).toEqual([{ watch: false, fieldSelector: 'spec.driver=gpu.nvidia.com', status: 200 }]);
    expect(first.getNode('d')).toMatchObject({ gpuCount: 8, freeWholeGpus: 5, gpuModelName: 'H100', gpuMemoryMiB: 81559 });
    expect(first.dra.gpusByNode.get('d')?.devices).toBe(8);
    expect(first.getNode('a')?.freeWholeGpus).toBe(6);

    // The driver publishes a new generation with one GPU gone: the watch brings it, the old slice is outdone.
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('d', 7, DRA_GPUS.h100, { generation: 2 }), metadata: { name: 'd-gpu.nvidia.com-2' } });
    const second = await cluster.load();
    expect(api.sliceRequests.at(-1)).toMatchObject({ watch: true, fieldSelector: 'spec.driver=gpu.nvidia.com' });
    expect(second.getNode('d')).toMatchObject({ gpuCount: 7, freeWholeGpus: 4 });
    expect(first.getNode('d')?.gpuCount).toBe(8);

    // Nothing changed: the snapshot is kept.
    expect(await cluster.load()).toBe(second);
  });

  it('keeps a DRA node\'s health conditions, and withholds the GPUs a NoSchedule device taint keeps pods off', async () => {
    api.draServed = true;
    const failing = { ...draNode('d'), status: { allocatable: { cpu: '192' }, conditions: [{ type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'fell off the bus' }] } };
    api.change('nodes', 'ADDED', failing);
    const devices = [0, 1, 2, 3].map((minor) => nvidiaGpuDevice(minor, DRA_GPUS.h100));
    devices[0] = { ...devices[0], taints: [{ key: 'gpu.nvidia.com/gpu-lost', effect: 'NoSchedule' }] };
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('d', 4, DRA_GPUS.h100, { devices }), metadata: { name: 'd-gpu.nvidia.com-1' } });
    const snapshot = await source().load();
    expect(snapshot.getNode('d')).toMatchObject({ gpuCount: 3 });
    expect(snapshot.getNode('d')?.health.failing?.reason).toBe('NvidiaXID79Error');
    expect(snapshot.getNode('d')?.health.unhealthy).toEqual([{ gpus: 1, class: 'GpuLost' }]);
  });

  it('watches ResourceClaims: GPUs a claim is allocated are taken on the node, and freed when the claim goes', async () => {
    api.draServed = true;
    api.change('nodes', 'ADDED', draNode('d'));
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('d', 8, DRA_GPUS.h100), metadata: { name: 'd-gpu.nvidia.com-1' } });
    api.change('resourceclaims', 'ADDED', nvidiaGpuClaim('waiting', 'ml', 2));
    const cluster = source();
    const first = await cluster.load();
    expect(first.gpuClaim('ml/waiting')).toMatchObject({ requests: [{ count: 2 }], isAllocated: false });
    expect(first.getNode('d')).toMatchObject({ gpuCount: 8, freeWholeGpus: 8 });

    api.change('resourceclaims', 'MODIFIED', nvidiaGpuClaim('waiting', 'ml', 2, [], { node: 'd', devices: ['gpu-0', 'gpu-1'] }));
    const second = await cluster.load();
    expect(api.claimRequests.map((r) => (r.watch ? 'watch' : 'list'))).toEqual(['list', 'watch']);
    expect(second.getNode('d')).toMatchObject({ claimedGpus: 2, freeWholeGpus: 6 });
    expect(first.getNode('d')?.freeWholeGpus).toBe(8);

    api.change('resourceclaims', 'DELETED', nvidiaGpuClaim('waiting', 'ml', 2, [], { node: 'd', devices: ['gpu-0', 'gpu-1'] }));
    const third = await cluster.load();
    expect(third.getNode('d')).toMatchObject({ claimedGpus: 0, freeWholeGpus: 8 });
    expect(third.gpuClaim('ml/waiting')).toBeUndefined();
  });

  it('a 404 on resource.k8s.io means no DRA, not a failure; the group is asked for again only after DRA_ABSENT_RECHECK_MS', async () => {
    let clock = 1_000_000;
    api.change('nodes', 'ADDED', draNode('d'));
    const cluster = source([], [], () => clock);
    const first = await cluster.load();
    expect(first.getNode('d')?.gpuCount).toBe(0);
    expect(api.sliceRequests.map((r) => r.status)).toEqual([404]);

    api.draServed = true;
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('d', 4, DRA_GPUS.h100), metadata: { name: 'd-gpu.nvidia.com-1' } });
    clock += DRA_ABSENT_RECHECK_MS - 1;
    expect((await cluster.load()).getNode('d')?.gpuCount).toBe(0);
    expect(api.sliceRequests).toHaveLength(1);
    clock += 1;
    expect((await cluster.load()).getNode('d')?.gpuCount).toBe(4);
    expect(api.sliceRequests.map((r) => `${r.watch ? 'watch' : 'list'} ${r.status}`)).toEqual(['list 404', 'list 200']);
  });

  it('fails the refresh, changing nothing, when the slices cannot be read for another reason', async () => {
    api.draServed = true;
    const cluster = source();
    await cluster.load();
    api.mode.resourceslices = 'fail';
    api.change('resourceslices', 'ADDED', { ...nvidiaResourceSlice('a', 4, DRA_GPUS.h100), metadata: { name: 'x' } });
    await expect(cluster.load()).rejects.toThrow(/resourceslices.*500/);
  });
});
