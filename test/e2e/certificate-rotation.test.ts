// The certificate rotation interrupted after each of its steps, with real
// failures, while the real kube-scheduler keeps scheduling GPU pods through
// mutual TLS. The rotation is the Lambda's own handler
// (lambdas/certificates/certificates-handler.ts) as the rotation identity
// (impersonated, with the stack's RBAC and admission policy); the scheduler
// is the stack's gpu-scheduler Deployment, ConfigMap and Secret
// (local/control-plane/scheduler-deployment.ts runs a real kube-scheduler
// for each of its pods, on the files a kubelet would mount); the ALB is the
// local adapter's mutual-TLS listener, fed by its AWS side
// (local/extender-host/alb-api.ts: moto has no trust stores, and never hands
// back an imported key). The failures:
// - ACM ImportCertificate and ELB ModifyTrustStore answer errors from the AWS
//   fault proxy (local/proxies/aws-fault-proxy.ts): moto cannot fail them on cue;
// - the API server refuses the Deployment's restart patch through the
//   Kubernetes fault proxy (the Secret is written by then);
// - the Deployment's rollout does not finish (its new pod never gets Ready)
//   within the wait the run is given.
// Each interrupted run leaves its step in the record; the next scheduled run,
// not forced, resumes and completes it.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../cdk/app-config/parse-app-config';
import { CERTIFICATES_GROUP } from '../../cdk/lib/access/extender-tls-manifests';
import { secondSchedulerManifests } from '../../cdk/lib/scheduler/second-scheduler-manifests';
import { awsCaller } from '../../lambdas/certificates/aws-signed-request';
import { acmCertificateStore, s3BundleStore } from '../../lambdas/certificates/aws-stores';
import { createCertificatesHandler, type CertificatesResult } from '../../lambdas/certificates/certificates-handler';
import { readRecord, type RotationRecord, type RotationStep } from '../../lambdas/certificates/rotation-record';
import { issuingCaIn } from '../../lambdas/certificates/rotation';
import { awsClientConfig } from '../../local/aws/moto';
import { waitFor } from '../../local/common/wait';
import { runSchedulerDeployment, type SchedulerDeployment } from '../../local/control-plane/scheduler-deployment';
import { startLocalAlbApi, type LocalAlbApi } from '../../local/extender-host/alb-api';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import { startAwsFaultProxy, type AwsCall, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';
import type { FaultPlan } from '../../local/proxies/fault-plan';
import { startCountingProxy, type CountingProxy, type KubeCall } from '../../local/proxies/kube-api-proxy';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';
import { e2eHarness } from './support/e2e-context';
import { applyExtenderTlsObjects } from './support/extender-tls-objects';
import { impersonating } from './support/impersonation';

const harness = e2eHarness();
const { core, apps } = harness;
const aws = awsClientConfig(harness.info.motoUrl);
const moto = awsCaller(aws.region, () => Promise.resolve(aws.credentials), aws.endpoint);
const bucket = `certificate-rotation-${process.pid}`;
/** The ALB's DNS name, as the server certificate names it; the harness's DNS maps it to the adapter's port. */
const ALB_NAME = 'internal-gpu-extender-0123456789.us-east-1.elb.amazonaws.com';
const SECRET = 'gpu-scheduler-extender-tls';

let namespace = '';
let awsPlan: FaultPlan<AwsCall> | undefined;
let kubePlan: FaultPlan<KubeCall> | undefined;
let awsProxy: AwsFaultProxy | undefined;
let kubeProxy: CountingProxy | undefined;
let albApi: LocalAlbApi | undefined;
let extender: RecordingExtender | undefined;
let deployment: SchedulerDeployment | undefined;
let tlsObjects: { remove(): Promise<void> } | undefined;
let certificateArn = '';
let podCounter = 0;
const hosts = new Map<string, string>();

function setupDone<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('setup did not finish');
  return value;
}

/** One invocation of the rotation Lambda's handler, as the schedule or CloudFormation invokes it. */
async function invokeRotation(event: unknown, rolloutWaitMs = 120_000, serverDnsName = ALB_NAME): Promise<CertificatesResult> {
  const handler = createCertificatesHandler(
    {
      AWS_REGION: aws.region,
      AWS_ENDPOINT_URL: setupDone(awsProxy).url,
      CERTIFICATE_BUCKET: bucket,
      CERTIFICATE_OWNER: 'certificate-rotation-e2e',
      SERVER_DNS_NAME: serverDnsName,
      SCHEDULER_NAMESPACE: namespace,
      SCHEDULER_NAME: 'gpu-scheduler',
      SCHEDULER_TLS_SECRET: SECRET,
    },
    {
      kubeConfig: () => Promise.resolve(impersonating(harness.kubeConfig, CERTIFICATES_GROUP, 'certificate-rotation', setupDone(kubeProxy).url)),
      credentials: () => Promise.resolve(aws.credentials),
      rolloutWaitMs,
      trustStoreWaitMs: 60_000,
      log: () => undefined,
    },
  );
  return handler(event);
}

const scheduled = (extra: Record<string, unknown> = {}) => ({ rotate: true, trustStoreArn: setupDone(albApi).trustStoreArn, ...extra });

async function record(): Promise<RotationRecord> {
  return readRecord(s3BundleStore(moto, aws.region, bucket, true));
}

async function schedulerTls(): Promise<{ certificatePem: string; privateKeyPem: string; caBundlePem: string }> {
  const data = (await core.readNamespacedSecret({ namespace, name: SECRET })).data ?? {};
  const text = (key: string): string => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
  return { certificatePem: text('tls.crt'), privateKeyPem: text('tls.key'), caBundlePem: text('ca.crt') };
}

/**
 * The certificate a listener presents now: a GET /healthz with the
 * scheduler's own client certificate, so the handshake completes and the
 * exchange ends cleanly (a probe that hung up mid-handshake would count as a refusal).
 */
async function servedCertificate(alb = setupDone(extender), serverName = ALB_NAME): Promise<string> {
  const url = new URL(alb.adapter.url);
  const { certificatePem, privateKeyPem } = await schedulerTls();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(url.port), path: '/healthz', servername: serverName, cert: certificatePem, key: privateKeyPem, rejectUnauthorized: false, agent: false, timeout: 10_000 },
      (res) => {
        const peer = (res.socket as TLSSocket).getPeerX509Certificate();
        res.resume();
        res.on('end', () => (peer === undefined ? reject(new Error('the listener presented no certificate')) : resolve(peer.toString())));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('no answer from the listener in 10 s')));
    req.end();
  });
}

/** A GPU pod through the gpu-scheduler, placed by the extender (its filter decision recorded): scheduling works now. */
async function schedulesAGpuPod(alb = setupDone(extender)): Promise<void> {
  const name = `gpu-${podCounter++}`;
  await core.createNamespacedPod({ namespace, body: a10gPod(name) });
  await waitFor(`pod ${name} bound by the gpu-scheduler`, async () => ((await core.readNamespacedPod({ namespace, name })).spec?.nodeName ? true : undefined), {
    timeoutMs: 120_000,
  });
  expect(alb.filterDecisionsOf(namespace, name)[0]).toMatchObject({ kept: 2 });
  // Frees its GPU for the next one (no kubelet: gone at once).
  await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });
}

/** The run fails at `step`, and the record names it for the next run. */
async function interruptedAt(step: RotationStep, run: Promise<CertificatesResult>): Promise<void> {
  await expect(run).rejects.toThrow(`at step ${step}`);
  expect((await record()).inProgress?.step).toBe(step);
}

/** Every certificate of the path is of one finished rotation: the ALB serves ACM's, which the scheduler trusts; the trust store holds the client's CA. */
async function pathIsConsistent(): Promise<{ server: string; client: string }> {
  const finished = await record();
  expect(finished.inProgress).toBeUndefined();
  expect(finished.certificateArn).toBe(certificateArn);
  const acm = await acmCertificateStore(moto, aws.region, {}).readCertificate(certificateArn);
  const server = setupDone(acm).certificatePem;
  const tls = await schedulerTls();
  expect(issuingCaIn(server, tls.caBundlePem)).toBeDefined();
  expect(new X509Certificate(await servedCertificate()).fingerprint256).toBe(new X509Certificate(server).fingerprint256);
  const trusted = await setupDone(albApi).tlsFor(certificateArn);
  expect(issuingCaIn(tls.certificatePem, trusted.clientCaBundle)).toBeDefined();
  return { server: new X509Certificate(server).fingerprint256, client: new X509Certificate(tls.certificatePem).fingerprint256 };
}

/** The stack's scheduler objects for an ALB of this name, in this file's namespace, one replica; applied as kubectl applies them (the ConfigMap before the Deployment). */
async function applySchedulerObjects(albName: string): Promise<void> {
  const scheduler = parseAppConfig({ scheduler: { namespace, replicas: 1 } }).scheduler;
  const objects = secondSchedulerManifests({ scheduler, extenderUrlPrefix: `https://${albName}:443`, extenderEndpoint: albName, extenderTlsSecret: SECRET });
  const client = KubernetesObjectApi.makeApiClient(harness.kubeConfig);
  for (const object of objects.filter((o) => ['ServiceAccount', 'ConfigMap', 'Deployment'].includes(String(o.kind)))) {
    await client.patch(object as KubernetesObject, undefined, undefined, 'certificate-rotation-e2e', true, PatchStrategy.ServerSideApply);
  }
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('certificate-rotation');
  expect((await moto({ service: 's3', method: 'PUT', hostname: 's3.amazonaws.com', path: `/${bucket}` })).status).toBe(200);
  expect(
    (
      await moto({
        service: 's3',
        method: 'PUT',
        hostname: 's3.amazonaws.com',
        path: `/${bucket}?versioning`,
        headers: { 'content-type': 'application/xml' },
        body: '<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>',
      })
    ).status,
  ).toBe(200);
  // The rotation → fault proxy → the ALB's AWS side → moto.
  albApi = await startLocalAlbApi({ target: harness.info.motoUrl, region: aws.region, bucket, key: 'extender-mtls/client-ca-bundle.pem' });
  awsProxy = await startAwsFaultProxy({ target: albApi.url, faults: (call, attempt) => awsPlan?.(call, attempt) });
  const { controlPlane } = harness.info;
  kubeProxy = await startCountingProxy({
    target: controlPlane.apiServerUrl,
    caPem: await readFile(controlPlane.caFile, 'utf8'),
    certPem: await readFile(controlPlane.caFile, 'utf8'),
    keyPem: await readFile(join(dirname(controlPlane.caFile), 'apiserver.key'), 'utf8'),
    faults: (call, attempt) => kubePlan?.(call, attempt),
  });
  tlsObjects = await applyExtenderTlsObjects(harness.kubeConfig, { namespace, schedulerName: 'gpu-scheduler', secretName: SECRET });
  for (const instanceType of [A10G_NODE_TYPE, A10G_NODE_TYPE, T4_NODE_TYPE]) await createGpuNode(harness.nodeClients, { instanceType, seedLabels: true });

  // Deploy time: the first generation, before the trust store and the scheduler exist.
  const created = await invokeRotation({ RequestType: 'Create', ResourceProperties: { ServerDnsName: ALB_NAME } });
  certificateArn = created.Data?.CertificateArn ?? '';
  expect(certificateArn).toMatch(/^arn:aws:acm:/);
  extender = await startRecordingExtender(controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' }, { tls: await albApi.tlsFor(certificateArn) });
  albApi.attach(extender.adapter, certificateArn);
  hosts.set(ALB_NAME, new URL(extender.adapter.url).host);

  // The stack's scheduler objects, in this file's namespace, one replica.
  await applySchedulerObjects(ALB_NAME);
  deployment = runSchedulerDeployment({
    core,
    apps,
    namespace,
    name: 'gpu-scheduler',
    tlsSecret: SECRET,
    dir: join(controlPlane.logDir, `certificate-rotation-${process.pid}`),
    hosts,
    start: (settings) => harness.startGpuScheduler(settings),
  });
  await waitFor('the gpu-scheduler Deployment to run its pod', () => Promise.resolve(deployment?.starts === 1 ? true : undefined), { timeoutMs: 120_000 });
}, 600_000);

afterAll(async () => {
  awsPlan = undefined;
  kubePlan = undefined;
  await harness.tearDown(namespace, deployment, extender, kubeProxy, awsProxy, albApi);
  await tlsObjects?.remove();
});

describe('a certificate rotation interrupted after each step', () => {
  it('schedules GPU pods through mutual TLS with the first generation', async () => {
    await pathIsConsistent();
    await schedulesAGpuPod();
  });

  it('an ACM import that fails: the scheduler already trusts the new server CA beside the old one; the next run issues and imports again', async () => {
    const before = await pathIsConsistent();
    const starts = setupDone(deployment).starts;
    awsPlan = (call) => (call.service === 'acm' && call.action === 'ImportCertificate' ? { kind: 'status', status: 500 } : undefined);
    await interruptedAt('server-certificate', invokeRotation(scheduled({ force: true })));
    awsPlan = undefined;
    // The ALB still serves the old certificate, and the restarted scheduler trusts its CA still.
    expect(new X509Certificate(await servedCertificate()).fingerprint256).toBe(before.server);
    expect(setupDone(deployment).starts).toBeGreaterThan(starts);
    await schedulesAGpuPod();

    const resumed = await invokeRotation(scheduled());
    expect(resumed.rotated).toBe(true);
    const after = await pathIsConsistent();
    expect(after.server).not.toBe(before.server);
    expect(after.client).not.toBe(before.client);
    await schedulesAGpuPod();
  });

  it('a trust-store update that fails: nothing else changed; the next run puts a new client CA in and completes', async () => {
    const before = await pathIsConsistent();
    const versions = setupDone(albApi).trustStoreVersions.length;
    awsPlan = (call) => (call.service === 'elasticloadbalancing' && call.action === 'ModifyTrustStore' ? { kind: 'throttle' } : undefined);
    await interruptedAt('trust-store', invokeRotation(scheduled({ force: true })));
    awsPlan = undefined;
    // The Secret still holds the old client certificate, which the trust store still admits.
    expect(new X509Certificate((await schedulerTls()).certificatePem).fingerprint256).toBe(before.client);
    expect(setupDone(albApi).trustStoreVersions).toHaveLength(versions);
    await schedulesAGpuPod();

    await invokeRotation(scheduled());
    const after = await pathIsConsistent();
    expect(after.client).not.toBe(before.client);
    expect(after.server).not.toBe(before.server);
    expect(setupDone(albApi).trustStoreVersions.length).toBeGreaterThan(versions);
    await schedulesAGpuPod();
  });

  it('the Secret written, then the restart refused by the API server: the old server certificate stays; the next run restarts and imports', async () => {
    const before = await pathIsConsistent();
    kubePlan = (call) => (call.key === `PATCH /apis/apps/v1/namespaces/${namespace}/deployments/gpu-scheduler` ? { kind: 'status', status: 503 } : undefined);
    await interruptedAt('scheduler-restart', invokeRotation(scheduled({ force: true })));
    kubePlan = undefined;
    expect(new X509Certificate((await schedulerTls()).certificatePem).fingerprint256).not.toBe(before.client);
    expect(new X509Certificate(await servedCertificate()).fingerprint256).toBe(before.server);
    await schedulesAGpuPod();

    await invokeRotation(scheduled());
    const after = await pathIsConsistent();
    expect(after.server).not.toBe(before.server);
    await schedulesAGpuPod();
  });

  it('a rollout that does not finish in time: the run fails before the import; once the pods roll, the next run completes', async () => {
    const before = await pathIsConsistent();
    setupDone(deployment).holdRollouts(true);
    await interruptedAt('scheduler-restart', invokeRotation(scheduled({ force: true }), 5_000));
    expect(new X509Certificate(await servedCertificate()).fingerprint256).toBe(before.server);
    // The running pod keeps scheduling meanwhile.
    await schedulesAGpuPod();
    setupDone(deployment).holdRollouts(false);

    await invokeRotation(scheduled());
    const after = await pathIsConsistent();
    expect(after.server).not.toBe(before.server);
    await schedulesAGpuPod();
  });

  it('never refused the scheduler a handshake and never failed an extender call', () => {
    const alb = setupDone(extender);
    expect(alb.adapter.refusedTlsHandshakes).toBe(0);
    expect(alb.responses.filter((response) => response.status !== 200)).toEqual([]);
  });
  it('a replaced load balancer: its new listener gets its own certificate, the scheduler rolls onto the new URL after its ConfigMap changed, and scheduling continues', async () => {
    const old = setupDone(extender);
    const oldServed = new X509Certificate(await servedCertificate(old)).fingerprint256;
    const replacedName = 'internal-gpu-extender-9876543210.us-east-1.elb.amazonaws.com';
    // CloudFormation updates the custom resource (a new ServerDnsName) before the manifests that depend on it.
    const updated = await invokeRotation({ RequestType: 'Update', PhysicalResourceId: certificateArn, ResourceProperties: { ServerDnsName: replacedName }, OldResourceProperties: { ServerDnsName: ALB_NAME } }, 120_000, replacedName);
    const replacedArn = updated.Data?.CertificateArn ?? '';
    expect(replacedArn).toMatch(/^arn:aws:acm:/);
    expect(replacedArn).not.toBe(certificateArn);
    // The scheduler trusts the new listener's CA before any pod calls it; the old listener still serves its own certificate.
    const newServer = setupDone(await acmCertificateStore(moto, aws.region, {}).readCertificate(replacedArn)).certificatePem;
    expect(issuingCaIn(newServer, (await schedulerTls()).caBundlePem)).toBeDefined();
    expect(new X509Certificate(await servedCertificate(old)).fingerprint256).toBe(oldServed);

    const replacement = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' }, { tls: await setupDone(albApi).tlsFor(replacedArn) });
    setupDone(albApi).attach(replacement.adapter, replacedArn);
    hosts.set(replacedName, new URL(replacement.adapter.url).host);
    const starts = setupDone(deployment).starts;
    await applySchedulerObjects(replacedName);
    const replacementUrl = `https://${new URL(replacement.adapter.url).host}`;
    await waitFor('the gpu-scheduler pod to roll onto the new load balancer', () => Promise.resolve(deployment?.calling === replacementUrl ? true : undefined), { timeoutMs: 120_000 });
    expect(setupDone(deployment).starts).toBeGreaterThan(starts);
    // CloudFormation deletes the old load balancer.
    setupDone(albApi).detach(old.adapter);
    await old.stop();
    extender = replacement;
    await schedulesAGpuPod(replacement);
    expect(replacement.responses.filter((response) => response.status !== 200)).toEqual([]);
    expect(replacement.adapter.refusedTlsHandshakes).toBe(0);
  });
});
