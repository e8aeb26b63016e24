// Installs the CRDs of the built Kueue module (local/builds/kueue-binaries.ts) into the
// local kube-apiserver as a release does: with the conversion webhooks its
// kustomization patches in (served by Kueue, whose certificate manager
// injects their CA and waits for them before it starts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeConfig, V1CustomResourceConversion } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { KueueBinaries } from '../builds/kueue-binaries';
import { installCrd, readCrdFile } from './crds';

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

/** Installs (or replaces: the files are those of the pinned release) each CRD with its conversion webhook, and waits until it is Established. */
export async function installKueueCrds(kubeConfig: KubeConfig, binaries: KueueBinaries, webhookService: { name: string; namespace: string }): Promise<void> {
  const conversions = kueueCrdConversions(binaries.crdKustomization, webhookService);
  for (const file of binaries.crdFiles) {
    const crd = readCrdFile(file);
    const conversion = conversions.get(crd.metadata?.name ?? '');
    await installCrd(kubeConfig, conversion ? { ...crd, spec: { ...crd.spec, conversion } } : crd, file, { replace: true });
  }
}
