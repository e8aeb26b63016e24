// The scheduler's side of the rotation, through the Kubernetes API with the
// rotation Lambda's narrow RBAC: get/update of one Secret (created empty by
// the stack's manifests), get/patch of the scheduler's Deployment.
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, isKubeNotFound, MERGE_PATCH_OPTIONS } from '../kube';
import type { SchedulerTls } from './rotate-certificates';

export interface SchedulerRef {
  readonly namespace: string;
  readonly deployment: string;
  readonly secret: string;
}

/** The annotation whose change rolls the scheduler's pods, so they read the new files. */
export const ROTATED_AT_ANNOTATION = 'gpu-scheduling/extender-tls-rotated-at';
const ROLLOUT_WAIT_MS = 5 * 60_000;

const decode = (value: string | undefined): string => (value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));
const encode = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

export function schedulerSecretPorts(kc: KubeConfig, ref: SchedulerRef, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  return {
    async readSchedulerTls(): Promise<SchedulerTls | undefined> {
      const secret = await core.readNamespacedSecret({ namespace: ref.namespace, name: ref.secret });
      const data = secret.data ?? {};
      if (!data['tls.crt'] || !data['tls.key']) return undefined;
      return { certificatePem: decode(data['tls.crt']), privateKeyPem: decode(data['tls.key']), caBundlePem: decode(data['ca.crt']) };
    },
    async writeSchedulerTls(tls: SchedulerTls): Promise<void> {
      const secret = await core.readNamespacedSecret({ namespace: ref.namespace, name: ref.secret });
      secret.data = { 'tls.crt': encode(tls.certificatePem), 'tls.key': encode(tls.privateKeyPem), 'ca.crt': encode(tls.caBundlePem) };
      await core.replaceNamespacedSecret({ namespace: ref.namespace, name: ref.secret, body: secret, fieldManager: FIELD_MANAGER });
    },
    async restartScheduler(): Promise<void> {
      const patch = { spec: { template: { metadata: { annotations: { [ROTATED_AT_ANNOTATION]: new Date().toISOString() } } } } };
      try {
        await apps.patchNamespacedDeployment({ namespace: ref.namespace, name: ref.deployment, body: patch, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
      } catch (error) {
        // First deployment: the scheduler is created after its certificates and reads them at start.
        if (isKubeNotFound(error)) return;
        throw error;
      }
      const deadline = Date.now() + ROLLOUT_WAIT_MS;
      for (;;) {
        const deployment = await apps.readNamespacedDeployment({ namespace: ref.namespace, name: ref.deployment });
        const want = deployment.spec?.replicas ?? 1;
        const status = deployment.status ?? {};
        const done =
          (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0) &&
          (status.updatedReplicas ?? 0) === want &&
          (status.availableReplicas ?? 0) >= want &&
          (status.replicas ?? 0) === want;
        if (done) return;
        if (Date.now() > deadline) throw new Error(`${ref.namespace}/${ref.deployment} did not finish rolling out within ${ROLLOUT_WAIT_MS / 60_000} min; the server certificate is left as it was`);
        await sleep(5_000);
      }
    },
  };
}
