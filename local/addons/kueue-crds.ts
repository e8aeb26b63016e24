// Installs the CRDs of the built Kueue module (local/build-kueue.ts) into the
// local kube-apiserver as a release does: with the conversion webhooks its
// kustomization patches in (served by Kueue, whose certificate manager
// injects their CA and waits for them before it starts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceConversion, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { KueueBinaries } from '../build/kueue-binaries';
import { readCrdFile } from './crds';
import { waitFor } from '../common/wait';

interface ConversionPatch {
  metadata?: { name?: string };
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: { path?: string } }; conversionReviewVersions?: string[] } } };
}

/** CRD name → the conversion webhook the kustomization's active patches give it, pointed at `service`. */
export function kueueCrdConversions(kustomizationFile: string, service: { name: string; namespace: string }): Map<string, V1CustomResourceConversion> {
  const kustomization = parse(readFileSync(kustomizationFile, 'utf8')) as { patches?: { path?: string }[] } | null;
  const conversions = new Map<string, V1CustomResourceConversion>();
  for (const { path } of kustomization?.patches ?? []) {
    if (!path) continue;
    const patch = parse(readFileSync(join(dirname(kustomizationFile), path), 'utf8')) as ConversionPatch | null;
    const name = patch?.metadata?.name;
    const webhook = patch?.spec?.conversion?.webhook;
    if (!name || patch.spec?.conversion?.strategy !== 'Webhook' || !webhook) continue;
    conversions.set(name, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { ...service, path: webhook.clientConfig?.service?.path ?? '/convert' } },
        conversionReviewVersions: webhook.conversionReviewVersions ?? ['v1'],
      },
    });
  }
  if (conversions.size === 0) throw new Error(`${kustomizationFile} patches no CRD with a conversion webhook: not the layout of a Kueue release`);
  return conversions;
}

/** Installs (or replaces: the files are those of the pinned release) each CRD and waits until it is Established. */
export async function installKueueCrds(kubeConfig: KubeConfig, binaries: KueueBinaries, webhookService: { name: string; namespace: string }): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const conversions = kueueCrdConversions(binaries.crdKustomization, webhookService);
  for (const file of binaries.crdFiles) {
    const crd = readCrdFile(file);
    const name = crd.metadata?.name ?? '';
    const conversion = conversions.get(name);
    const body: V1CustomResourceDefinition = conversion ? { ...crd, spec: { ...crd.spec, conversion } } : crd;
    try {
      await api.createCustomResourceDefinition({ body });
    } catch (error) {
      if (!/409|AlreadyExists/i.test(String(error))) throw new Error(`installing CRD ${name} from ${file}: ${String(error)}`);
      // Kept from an earlier start: keep the CA Kueue injected, in case its webhook already serves.
      const current = await api.readCustomResourceDefinition({ name });
      const caBundle = current.spec.conversion?.webhook?.clientConfig?.caBundle;
      if (body.spec.conversion?.webhook?.clientConfig && caBundle) body.spec.conversion.webhook.clientConfig.caBundle = caBundle;
      await api.replaceCustomResourceDefinition({ name, body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } } });
    }
    await waitFor(`CRD ${name} Established`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
}
