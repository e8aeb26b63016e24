// Kueue's admission webhooks as its manifests register them, served by the
// local controller manager. The apiserver calls a webhook named by a Service;
// with no kube-proxy here it reaches the Service through its EndpointSlice
// (kube-apiserver --enable-aggregator-routing), so the Service has no selector
// and one EndpointSlice at this machine's non-loopback address (EndpointSlices
// may not point at loopback), where the webhook server listens. Kueue's
// internal certificate management issues the serving certificate for
// `<service>.<namespace>.svc` (the name the apiserver verifies) and writes its
// CA into both webhook configurations, as in a real install.
import { readFileSync } from 'node:fs';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
  type V1MutatingWebhook,
  type V1MutatingWebhookConfiguration,
  type V1ValidatingWebhook,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

export const KUEUE_NAMESPACE = 'kueue-system';
export const KUEUE_WEBHOOK_SERVICE = 'kueue-webhook-service';
export const KUEUE_WEBHOOK_SECRET = 'kueue-webhook-server-cert';
/** Kueue's cert rotator writes its CA into the configurations named after the service (`kueue-` + type). */
export const KUEUE_WEBHOOK_CONFIGURATIONS = { mutating: 'kueue-mutating-webhook-configuration', validating: 'kueue-validating-webhook-configuration' } as const;

/**
 * The webhooks of the integrations the harness enables (`batch/job`) and of
 * Kueue's own kinds. The manifests list every integration's; a webhook whose
 * integration is off has no handler in the server, and with failurePolicy
 * Fail it would reject every object of its kind.
 */
function servedHere(path: string | undefined): boolean {
  return path !== undefined && (/-batch-v1-job$/.test(path) || /-kueue-x-k8s-io-v1beta2-/.test(path));
}

interface WebhookConfigurations {
  mutating: V1MutatingWebhookConfiguration;
  validating: V1ValidatingWebhookConfiguration;
}

/** The module's two webhook configurations, renamed and pointed at the local Service as the release's kustomization does. */
export function kueueWebhookConfigurations(manifestsFile: string): WebhookConfigurations {
  const documents = parseAllDocuments(readFileSync(manifestsFile, 'utf8')).map((doc) => doc.toJS() as { kind?: string; webhooks?: (V1MutatingWebhook | V1ValidatingWebhook)[] } | null);
  const retarget = <T extends V1MutatingWebhook | V1ValidatingWebhook>(webhooks: T[]): T[] =>
    webhooks
      .filter((webhook) => servedHere(webhook.clientConfig.service?.path))
      .map((webhook) => ({
        ...webhook,
        clientConfig: { service: { name: KUEUE_WEBHOOK_SERVICE, namespace: KUEUE_NAMESPACE, path: webhook.clientConfig.service?.path ?? '' } },
      }));
  const mutating = documents.find((doc) => doc?.kind === 'MutatingWebhookConfiguration')?.webhooks as V1MutatingWebhook[] | undefined;
  const validating = documents.find((doc) => doc?.kind === 'ValidatingWebhookConfiguration')?.webhooks as V1ValidatingWebhook[] | undefined;
  if (!mutating?.length || !validating?.length) throw new Error(`${manifestsFile} lacks a MutatingWebhookConfiguration or ValidatingWebhookConfiguration with webhooks`);
  const result = {
    mutating: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: KUEUE_WEBHOOK_CONFIGURATIONS.mutating }, webhooks: retarget(mutating) },
    validating: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: KUEUE_WEBHOOK_CONFIGURATIONS.validating }, webhooks: retarget(validating) },
  };
  if (!result.mutating.webhooks.some((webhook) => webhook.name === 'mjob.kb.io')) throw new Error(`${manifestsFile} has no mjob.kb.io webhook (the Job integration's defaulting)`);
  return result;
}

const ignoreMissing = (error: unknown): void => {
  if (!/404|not found/i.test(String(error))) throw error;
};

/**
 * Creates the namespace, the (empty) certificate Secret Kueue fills, the
 * Service, its EndpointSlice at `address:port` and the webhook configurations.
 */
export async function installKueueWebhooks(kubeConfig: KubeConfig, manifestsFile: string, address: string, port: number): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const admission = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const namespace = KUEUE_NAMESPACE;
  const exists = (error: unknown): void => {
    if (!/409|AlreadyExists/i.test(String(error))) throw error;
  };
  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(exists);
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: KUEUE_WEBHOOK_SECRET } } }).catch(exists);
  await core.deleteNamespacedService({ namespace, name: KUEUE_WEBHOOK_SERVICE }).catch(ignoreMissing);
  await core.createNamespacedService({ namespace, body: { metadata: { name: KUEUE_WEBHOOK_SERVICE }, spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }] } } });
  const sliceName = `${KUEUE_WEBHOOK_SERVICE}-local`;
  await discovery.deleteNamespacedEndpointSlice({ namespace, name: sliceName }).catch(ignoreMissing);
  await discovery.createNamespacedEndpointSlice({
    namespace,
    body: {
      metadata: { name: sliceName, labels: { 'kubernetes.io/service-name': KUEUE_WEBHOOK_SERVICE, 'endpointslice.kubernetes.io/managed-by': 'eks-gpu-scheduling.local' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    },
  });
  await uninstallKueueWebhookConfigurations(kubeConfig);
  const configurations = kueueWebhookConfigurations(manifestsFile);
  await admission.createMutatingWebhookConfiguration({ body: configurations.mutating });
  await admission.createValidatingWebhookConfiguration({ body: configurations.validating });
}

/**
 * Deletes the webhook configurations: with failurePolicy Fail and no Kueue
 * to answer, every Job created afterwards (by any file) would be refused.
 */
export async function uninstallKueueWebhookConfigurations(kubeConfig: KubeConfig): Promise<void> {
  const admission = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  await admission.deleteMutatingWebhookConfiguration({ name: KUEUE_WEBHOOK_CONFIGURATIONS.mutating }).catch(ignoreMissing);
  await admission.deleteValidatingWebhookConfiguration({ name: KUEUE_WEBHOOK_CONFIGURATIONS.validating }).catch(ignoreMissing);
}
