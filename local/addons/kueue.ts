// Kueue against the local kube-apiserver: its controller manager built from
// the Go module (local/builds/kueue-binaries.ts), its CRDs and admission webhooks from
// the same module, with the Job integration (only Jobs that name a LocalQueue),
// Topology Aware Scheduling (on by default in this release) and optionally
// waitForPodsReady. Kueue acts on Jobs by suspending and resuming them and on
// their pods by scheduling gates and node selectors, whatever their scheduler:
// the gpu-scheduler and the extender place the pods it lets go.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { KueueBinaries } from '../builds/kueue-binaries';
import { podLikeHostAddress } from '../common/host-address';
import { httpGet } from '../common/http-probe';
import { kueueConfiguration, type WaitForPodsReadyOptions } from './kueue-config';
import { installKueueCrds } from './kueue-crds';
import { installKueueWebhooks, KUEUE_NAMESPACE, KUEUE_WEBHOOK_SECRET, KUEUE_WEBHOOK_SERVICE, uninstallKueueWebhookConfigurations } from './kueue-webhooks';
import { mountSecret } from './secret-mount';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { Teardown } from '../common/teardown';
import { errorMessage } from '../../lambdas/common/error-message';
import { freeLoopbackPort } from '../common/ports';
import { waitFor } from '../common/wait';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

export type { WaitForPodsReadyOptions } from './kueue-config';

export const KUEUE_API = { group: 'kueue.x-k8s.io', version: 'v1beta2' } as const;
/** The label a Job names its LocalQueue with. */
export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';

/** Namespaced kinds first: a ClusterQueue in use keeps its finalizer until its workloads are gone. */
const NAMESPACED_PLURALS = ['workloads', 'localqueues'] as const;
const CLUSTER_PLURALS = ['clusterqueues', 'cohorts', 'resourceflavors', 'topologies', 'admissionchecks', 'workloadpriorityclasses'] as const;

export interface KueueOptions {
  binaries: KueueBinaries;
  /** An admin client: installs the CRDs, webhook objects and cleans up. */
  kubeConfig: KubeConfig;
  /** The kubeconfig file Kueue's controller manager uses (the admin one, like Karpenter's). */
  kubeconfigPath: string;
  /** Where its configuration, certificates and log go. */
  workDir: string;
  waitForPodsReady?: WaitForPodsReadyOptions;
}

export interface Kueue {
  readonly process: ManagedProcess;
  logTail(lines?: number): string;
  /**
   * Stops the controller manager, deletes the webhook configurations (nothing
   * would answer them) and every Kueue object with its finalizers removed
   * (nothing is left to release them). The CRDs stay for the next start.
   */
  stop(): Promise<void>;
}

/** Deletes every object of Kueue's kinds, finalizers first. */
export async function deleteKueueObjects(kubeConfig: KubeConfig): Promise<void> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const noFinalizers = { metadata: { finalizers: null } };
  const ignoreMissing = (error: unknown): void => {
    if (!/404|not found/i.test(String(error))) throw error;
  };
  for (const plural of NAMESPACED_PLURALS) {
    const list = (await custom.listClusterCustomObject({ ...KUEUE_API, plural })) as { items: { metadata: { name: string; namespace: string } }[] };
    for (const { metadata } of list.items) {
      const target = { ...KUEUE_API, plural, namespace: metadata.namespace, name: metadata.name };
      await custom.patchNamespacedCustomObject({ ...target, body: noFinalizers }, MERGE_PATCH_OPTIONS).catch(ignoreMissing);
      await custom.deleteNamespacedCustomObject(target).catch(ignoreMissing);
    }
  }
  for (const plural of CLUSTER_PLURALS) {
    const list = (await custom.listClusterCustomObject({ ...KUEUE_API, plural })) as { items: { metadata: { name: string } }[] };
    for (const { metadata } of list.items) {
      const target = { ...KUEUE_API, plural, name: metadata.name };
      await custom.patchClusterCustomObject({ ...target, body: noFinalizers }, MERGE_PATCH_OPTIONS).catch(ignoreMissing);
      await custom.deleteClusterCustomObject(target).catch(ignoreMissing);
    }
  }
}

/**
 * Waits until Kueue's mutating webhook answers: a dry-run Job naming a queue
 * must come back suspended (the apiserver learns the CA Kueue injected
 * through an informer, a moment after Kueue reports ready).
 */
async function waitForJobWebhook(kubeConfig: KubeConfig, failFast: () => void): Promise<void> {
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  await waitFor(
    "Kueue's Job webhook to suspend a Job that names a queue",
    async () => {
      const job = await batch.createNamespacedJob({
        namespace: KUEUE_NAMESPACE,
        dryRun: 'All',
        body: {
          metadata: { name: 'webhook-probe', labels: { [QUEUE_NAME_LABEL]: 'probe' } },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'probe', image: 'registry.k8s.io/pause:3.10' }] } } },
        },
      });
      return job.spec?.suspend === true ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, failFast },
  );
}

/** Writes the controller manager's configuration (local/addons/kueue-config.ts) with free ports; returns the file and its health port. */
async function writeKueueConfig(options: KueueOptions, webhookHost: string, certDir: string): Promise<{ file: string; healthPort: number; webhookPort: number }> {
  const webhookPort = await freeLoopbackPort();
  const healthPort = await freeLoopbackPort();
  const file = join(options.workDir, 'kueue-config.yaml');
  const config = kueueConfiguration({
    healthPort,
    metricsPort: await freeLoopbackPort(),
    webhookHost,
    webhookPort,
    certDir,
    ...(options.waitForPodsReady && { waitForPodsReady: options.waitForPodsReady }),
  });
  writeFileSync(file, stringify(config));
  return { file, healthPort, webhookPort };
}

/** Installs the CRDs and webhooks, starts the controller manager and waits until its webhooks suspend Jobs. */
export async function startKueue(options: KueueOptions): Promise<Kueue> {
  const { kubeConfig } = options;
  const certDir = join(options.workDir, 'kueue-webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const webhookHost = podLikeHostAddress();
  const config = await writeKueueConfig(options, webhookHost, certDir);
  const teardown = new Teardown();
  // Added first, so they run last: nothing would answer the webhooks once the manager stopped.
  teardown.add("Kueue's objects", () => deleteKueueObjects(kubeConfig));
  teardown.add("Kueue's webhook configurations", () => uninstallKueueWebhookConfigurations(kubeConfig));
  try {
    await installKueueCrds(kubeConfig, options.binaries, { name: KUEUE_WEBHOOK_SERVICE, namespace: KUEUE_NAMESPACE });
    await installKueueWebhooks(kubeConfig, options.binaries.webhookManifests, webhookHost, config.webhookPort);
    // Kueue's certificate manager fills the Secret and waits for the files, as
    // a kubelet would mount them into the pod's certDir.
    const certMount = mountSecret(kubeConfig.makeApiClient(CoreV1Api), { namespace: KUEUE_NAMESPACE, name: KUEUE_WEBHOOK_SECRET }, certDir, ['tls.crt', 'tls.key']);
    teardown.add("the webhook certificates' mount", async () => certMount.stop());
    const manager = await startReadyProcess(
      {
        name: 'kueue',
        command: options.binaries.binary,
        args: [`--config=${config.file}`, '--zap-log-level=3'],
        logFile: join(options.workDir, 'kueue.log'),
        env: { ...process.env, KUBECONFIG: options.kubeconfigPath },
      },
      { what: `Kueue /readyz on port ${config.healthPort}`, probe: async () => (await httpGet(`http://127.0.0.1:${config.healthPort}/readyz`)).status === 200, timeoutMs: 90_000 },
    );
    teardown.add('the Kueue controller manager', () => manager.stop());
    try {
      await waitForJobWebhook(kubeConfig, () => manager.assertRunning());
    } catch (error) {
      throw new Error(`${errorMessage(error)}\n--- Kueue log tail ---\n${manager.logTail()}`);
    }
    return { process: manager, logTail: (lines = 40) => manager.logTail(lines), stop: () => teardown.run() };
  } catch (error) {
    await teardown.run(() => undefined);
    throw new Error(`Kueue did not start: ${errorMessage(error)}`);
  }
}
