// The rotation Lambda's Kubernetes side (lambdas/certificates/scheduler-secret.ts)
// against the real kube-apiserver, as the group its EKS access entry names
// (gpu-scheduling-certificates, impersonated by the admin) with exactly the
// RBAC the stack applies (cdk/lib/access/extender-tls-manifests.ts): it reads
// and fills the empty Secret, rolls the scheduler Deployment and waits for the
// rollout; it may not read another Secret, create one, or patch another
// Deployment, and the stack's admission policy holds its patches to the
// Secret's three keys and the Deployment's restart annotation.
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATES_GROUP } from '../../cdk/lib/access/extender-tls-manifests';
import { writeLimitDenialPrefix } from '../../cdk/lib/access/write-limit-policy';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube';
import { ROTATED_AT_ANNOTATION, schedulerSecretPorts } from '../../lambdas/certificates/scheduler-secret';
import { e2eHarness } from './support/e2e-context';
import { applyExtenderTlsObjects } from './support/extender-tls-objects';
import { impersonating } from './support/impersonation';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import { finishTerminatingPods, markPodRunning } from '../../local/nodes/pod-status';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core, apps } = harness;
const SCHEDULER = 'gpu-scheduler';
const SECRET = 'gpu-scheduler-extender-tls';
let namespace = '';
let asRotation: KubeConfig;
let stopKubelet = false;
let tlsObjects: { remove(): Promise<void> } | undefined;
let kubelet: Promise<void> = Promise.resolve();

/** Stands in for kubelets: pods of the namespace become Ready, deleted ones finish. */
async function runKubelet(): Promise<void> {
  while (!stopKubelet) {
    const pods = await core.listNamespacedPod({ namespace });
    for (const pod of pods.items) {
      const name = pod.metadata?.name ?? '';
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (pod.spec?.nodeName && !ready && !pod.metadata?.deletionTimestamp) await markPodRunning(core, { namespace, name }).catch(() => undefined);
    }
    await finishTerminatingPods(core, namespace).catch(() => 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-tls');
  await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge' });
  tlsObjects = await applyExtenderTlsObjects(harness.kubeConfig, { namespace, schedulerName: SCHEDULER, secretName: SECRET });
  const deployment = (name: string) => ({
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'kube-scheduler' }] } },
    },
  });
  await apps.createNamespacedDeployment({ namespace, body: deployment(SCHEDULER) });
  await apps.createNamespacedDeployment({ namespace, body: deployment('other') });
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'unrelated' }, stringData: { token: 'x' } } });
  asRotation = impersonating(harness.kubeConfig, CERTIFICATES_GROUP, 'certificate-rotation');
  kubelet = runKubelet();
});

afterAll(async () => {
  stopKubelet = true;
  await kubelet;
  await harness.tearDown(namespace);
  await tlsObjects?.remove();
});

describe('the certificate rotation as gpu-scheduling-certificates', () => {
  it('finds the Secret empty, fills it, and reads back what it wrote', async () => {
    const ports = schedulerSecretPorts(asRotation, { namespace, deployment: SCHEDULER, secret: SECRET }, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 500))) });
    expect(await ports.readSchedulerTls()).toBeUndefined();
    const tls = { certificatePem: 'CERT\n', privateKeyPem: 'KEY\n', caBundlePem: 'CA\n' };
    await ports.writeSchedulerTls(tls);
    expect(await ports.readSchedulerTls()).toEqual(tls);
    const secret = await core.readNamespacedSecret({ namespace, name: SECRET });
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
  });

  it('rolls the scheduler Deployment and returns once the new pod is available', async () => {
    await waitFor('the first scheduler pod to be available', async () => ((await apps.readNamespacedDeployment({ namespace, name: SCHEDULER })).status?.availableReplicas === 1 ? true : undefined));
    const ports = schedulerSecretPorts(asRotation, { namespace, deployment: SCHEDULER, secret: SECRET }, { sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 500))) });
    await ports.restartScheduler();
    const deployment = await apps.readNamespacedDeployment({ namespace, name: SCHEDULER });
    expect(deployment.spec?.template.metadata?.annotations?.[ROTATED_AT_ANNOTATION]).toBeDefined();
    expect(deployment.status).toMatchObject({ updatedReplicas: 1, availableReplicas: 1, replicas: 1 });
    // A new ReplicaSet made the pod that is available now; the first one is scaled to 0.
    const sets = (await apps.listNamespacedReplicaSet({ namespace, labelSelector: `app=${SCHEDULER}` })).items;
    expect(sets.map((rs) => rs.status?.availableReplicas ?? 0).sort()).toEqual([0, 1]);
  }, 120_000);

  it('may not read another Secret, create one, or patch another Deployment', async () => {
    const coreAs = asRotation.makeApiClient(CoreV1Api);
    const appsAs = asRotation.makeApiClient(AppsV1Api);
    const status = (p: Promise<unknown>): Promise<number> => p.then(() => 200, (error: { code?: number }) => error.code ?? 0);
    expect(await status(coreAs.readNamespacedSecret({ namespace, name: 'unrelated' }))).toBe(403);
    expect(await status(coreAs.createNamespacedSecret({ namespace, body: { metadata: { name: 'new' } } }))).toBe(403);
    expect(await status(coreAs.listNamespacedSecret({ namespace }))).toBe(403);
    expect(await status(appsAs.readNamespacedDeployment({ namespace, name: 'other' }))).toBe(403);
    expect(await status(coreAs.deleteNamespacedSecret({ namespace, name: SECRET }))).toBe(403);
  });

  it('may change only the Secret\'s three keys and the Deployment\'s restart annotation (the admission policy)', async () => {
    const coreAs = asRotation.makeApiClient(CoreV1Api);
    const appsAs = asRotation.makeApiClient(AppsV1Api);
    const denial = writeLimitDenialPrefix(CERTIFICATES_GROUP);
    const outcome = (p: Promise<unknown>): Promise<string> =>
      p.then(
        () => 'allowed',
        (error: { code?: number; body?: unknown }) => (String(error.body).includes(denial) ? 'denied by the policy' : `HTTP ${error.code ?? '?'}`),
      );
    const secret = (body: object) => coreAs.patchNamespacedSecret({ namespace, name: SECRET, body }, MERGE_PATCH_OPTIONS);
    const deployment = (body: object) => appsAs.patchNamespacedDeployment({ namespace, name: SCHEDULER, body }, MERGE_PATCH_OPTIONS);
    const encoded = Buffer.from('CA2\n').toString('base64');
    expect(await outcome(secret({ data: { 'ca.crt': encoded } }))).toBe('allowed');
    expect(await outcome(secret({ data: { token: encoded } }))).toBe('denied by the policy');
    expect(await outcome(secret({ metadata: { labels: { extra: 'x' } } }))).toBe('denied by the policy');
    expect(await outcome(deployment({ spec: { template: { metadata: { annotations: { [ROTATED_AT_ANNOTATION]: new Date().toISOString() } } } } }))).toBe('allowed');
    expect(await outcome(deployment({ spec: { template: { spec: { containers: [{ name: 'c', image: 'attacker/kube-scheduler' }] } } } }))).toBe('denied by the policy');
    expect(await outcome(deployment({ spec: { template: { spec: { serviceAccountName: 'default' } } } }))).toBe('denied by the policy');
    expect(await outcome(deployment({ spec: { template: { metadata: { annotations: { other: 'x' } } } } }))).toBe('denied by the policy');
    expect(await outcome(deployment({ spec: { replicas: 3 } }))).toBe('denied by the policy');
    expect(await outcome(deployment({ metadata: { labels: { extra: 'x' } } }))).toBe('denied by the policy');
    // The policy judges only this group: the admin may still change the Deployment.
    expect((await apps.readNamespacedDeployment({ namespace, name: SCHEDULER })).spec?.template.spec?.containers[0]?.image).toBe('kube-scheduler');
  }, 120_000);
});
