// The scheduler's side of the rotation, through the Kubernetes API with the
// rotation Lambda's narrow RBAC: get/patch of one Secret (created empty by
// the stack's manifests), get/patch of the scheduler's Deployment. An
// admission policy (cdk/lib/access/extender-tls-manifests.ts) holds each
// patch to the Secret's three keys and the Deployment's restart annotation.
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
/** The Secret's keys the rotation writes, and the only ones it may change. */
export const SCHEDULER_TLS_KEYS = ['tls.crt', 'tls.key', 'ca.crt'] as const;
/** How long a restart may take before the run fails (the server certificate is then left as it was). */
export const DEFAULT_ROLLOUT_WAIT_MS = 5 * 60_000;

export interface SchedulerSecretOptions {
  readonly sleep?: (ms: number) => Promise<void>;
  readonly rolloutWaitMs?: number;
  /** The restart annotation's value. */
  readonly now?: () => Date;
}

const decode = (value: string | undefined): string => (value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));
const encode = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

export function schedulerSecretPorts(kc: KubeConfig, ref: SchedulerRef, options: SchedulerSecretOptions = {}) {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const rolloutWaitMs = options.rolloutWaitMs ?? DEFAULT_ROLLOUT_WAIT_MS;
  const now = options.now ?? (() => new Date());
  return {
    async readSchedulerTls(): Promise<SchedulerTls | undefined> {
      const secret = await core.readNamespacedSecret({ namespace: ref.namespace, name: ref.secret });
      const data = secret.data ?? {};
      if (!data['tls.crt'] || !data['tls.key']) return undefined;
      return { certificatePem: decode(data['tls.crt']), privateKeyPem: decode(data['tls.key']), caBundlePem: decode(data['ca.crt']) };
    },
    async writeSchedulerTls(tls: SchedulerTls): Promise<void> {
      // A merge patch of the three keys: nothing else of the Secret is sent.
      const data: Record<(typeof SCHEDULER_TLS_KEYS)[number], string> = { 'tls.crt': encode(tls.certificatePem), 'tls.key': encode(tls.privateKeyPem), 'ca.crt': encode(tls.caBundlePem) };
      await core.patchNamespacedSecret({ namespace: ref.namespace, name: ref.secret, body: { data }, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
    },
    async restartScheduler(): Promise<void> {
      const patch = { spec: { template: { metadata: { annotations: { [ROTATED_AT_ANNOTATION]: now().toISOString() } } } } };
      try {
        await apps.patchNamespacedDeployment({ namespace: ref.namespace, name: ref.deployment, body: patch, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
      } catch (error) {
        // First deployment: the scheduler is created after its certificates and reads them at start.
        if (isKubeNotFound(error)) return;
        throw error;
      }
      const deadline = Date.now() + rolloutWaitMs;
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
        if (Date.now() > deadline) {
          throw new Error(`${ref.namespace}/${ref.deployment} did not finish rolling out within ${Math.round(rolloutWaitMs / 1000)} s; the server certificate is left as it was`);
        }
        await sleep(Math.min(5_000, Math.max(100, rolloutWaitMs / 20)));
      }
    },
  };
}
