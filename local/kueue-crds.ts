// Installs the CRDs of the built Kueue module (local/build-kueue.ts) into the
// local kube-apiserver, as its manifests would.
import { readFileSync } from 'node:fs';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { KueueBinaries } from './build-kueue';
import { waitFor } from './wait';

/** Installs (or keeps: the files are those of the pinned release) each CRD and waits until it is Established. */
export async function installKueueCrds(kubeConfig: KubeConfig, binaries: KueueBinaries): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const file of binaries.crdFiles) {
    const crd = parse(readFileSync(file, 'utf8')) as V1CustomResourceDefinition;
    const name = crd.metadata?.name;
    if (!name) throw new Error(`${file} is not a CustomResourceDefinition with a name`);
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (error) {
      if (!/409|AlreadyExists/i.test(String(error))) throw new Error(`installing CRD ${name} from ${file}: ${String(error)}`);
    }
    await waitFor(`CRD ${name} Established`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
}
