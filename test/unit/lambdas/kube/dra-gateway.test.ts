/*
 * The DRA gateway (ResourceSlices, ResourceClaims) over client-node's ResourceV1Api, against an
 * in-process HTTPS server standing in for the API server: the real
 * kube-apiserver v1.36 always serves resource.k8s.io/v1, so the 404 of a
 * cluster without DRA (and a 403) cannot be had from it. The served path
 * runs against the real one in test/e2e/dra-outcome.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfigOf } from '../../../../lambdas/kube/kube-config';
import { createDraGateway } from '../../../../lambdas/kube/dra-gateway';
import { DRA_GPUS, nvidiaGpuClaim, nvidiaResourceSlice } from '../../../../local/addons/dra-gpu-driver';
import type { SelfSignedCert, TlsServer } from './tls-fixture';
import { selfSignedCert, startTlsServer } from './tls-fixture';

let cert: SelfSignedCert;
let server: TlsServer;
/** How the server answers the next requests. */
let answer: (url: URL, res: ServerResponse) => void = () => undefined;
const requests: URL[] = [];

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  cert = selfSignedCert();
  server = await startTlsServer(cert, (req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '', 'https://x');
    requests.push(url);
    answer(url, res);
  });
});

afterAll(() => server.close());

const gateway = () => createDraGateway(kubeConfigOf({ server: server.url, caPem: cert.certPem, tokens: { token: () => Promise.resolve('t') } }));

describe('DraGateway', () => {
  it('lists every page of the selected slices from resource.k8s.io/v1', async () => {
    requests.length = 0;
    const slices = [nvidiaResourceSlice('a', 8, DRA_GPUS.h100), nvidiaResourceSlice('b', 4, DRA_GPUS.a10g)];
    answer = (url, res) => {
      const first = url.searchParams.get('continue') === null;
      json(res, 200, { kind: 'ResourceSliceList', apiVersion: 'resource.k8s.io/v1', metadata: first ? { continue: 'page-2' } : {}, items: [first ? slices[0] : slices[1]] });
    };
    const listed = await gateway().listResourceSlices({ pageSize: 1, fieldSelector: 'spec.driver=gpu.nvidia.com' });
    expect(listed?.map((s) => [s.spec.nodeName, s.spec.devices?.length])).toEqual([
      ['a', 8],
      ['b', 4],
    ]);
    // Attributes and capacities come through as the library reads them.
    expect(listed?.[0]?.spec.devices?.[0]).toMatchObject({ attributes: { productName: { string: DRA_GPUS.h100.productName } }, capacity: { memory: { value: '81559Mi' } } });
    expect(requests.map((u) => [u.pathname, u.searchParams.get('fieldSelector'), u.searchParams.get('limit'), u.searchParams.get('continue')])).toEqual([
      ['/apis/resource.k8s.io/v1/resourceslices', 'spec.driver=gpu.nvidia.com', '1', null],
      ['/apis/resource.k8s.io/v1/resourceslices', 'spec.driver=gpu.nvidia.com', '1', 'page-2'],
    ]);
  });

  it('answers undefined when the API server does not serve the group (404): no DRA, not an error', async () => {
    answer = (_url, res) => json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    await expect(gateway().listResourceSlices()).resolves.toBeUndefined();
  });

  it('throws any other failure, e.g. 403 for an identity without list on resourceslices', async () => {
    answer = (_url, res) => json(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'resourceslices.resource.k8s.io is forbidden' });
    await expect(gateway().listResourceSlices()).rejects.toMatchObject({ code: 403 });
  });

  it('lists every page of the ResourceClaims of all namespaces; 404 is no DRA, another failure throws', async () => {
    requests.length = 0;
    const claims = [nvidiaGpuClaim('a', 'ml', 2), nvidiaGpuClaim('b', 'infer', 1, [], { node: 'n1', devices: ['gpu-0'] })];
    answer = (url, res) => {
      const first = url.searchParams.get('continue') === null;
      json(res, 200, { kind: 'ResourceClaimList', apiVersion: 'resource.k8s.io/v1', metadata: first ? { continue: 'page-2' } : {}, items: [first ? claims[0] : claims[1]] });
    };
    const listed = await gateway().listResourceClaims({ pageSize: 1 });
    expect(listed?.map((c) => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`)).toEqual(['ml/a', 'infer/b']);
    expect(listed?.[1]?.status?.allocation?.devices?.results).toEqual([{ request: 'gpus', driver: 'gpu.nvidia.com', pool: 'n1', device: 'gpu-0' }]);
    expect(requests.map((u) => [u.pathname, u.searchParams.get('limit'), u.searchParams.get('continue')])).toEqual([
      ['/apis/resource.k8s.io/v1/resourceclaims', '1', null],
      ['/apis/resource.k8s.io/v1/resourceclaims', '1', 'page-2'],
    ]);
    answer = (_url, res) => json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
    await expect(gateway().listResourceClaims()).resolves.toBeUndefined();
    answer = (_url, res) => json(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'resourceclaims.resource.k8s.io is forbidden' });
    await expect(gateway().listResourceClaims()).rejects.toMatchObject({ code: 403 });
  });
});
