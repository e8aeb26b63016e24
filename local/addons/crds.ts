// Reads and installs CustomResourceDefinitions from a release's files, as its
// chart or kustomization would, for every component the harness runs
// (Karpenter, the Prometheus Operator's CRDs, Kueue).
import { readFileSync } from 'node:fs';
import { ApiextensionsV1Api, loadYaml, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { waitFor } from '../common/wait';

/**
 * A CRD file deserialised into the client's model. The client sends only its
 * model's fields, so a plain YAML object would lose `x-kubernetes-validations`
 * (the CRD's CEL rules), `x-kubernetes-int-or-string` and the other
 * `x-kubernetes-*` keys, whose model names are camel-case: the API server
 * would then accept what the real CRD refuses.
 */
export function readCrdFile(file: string): V1CustomResourceDefinition {
  const crd = loadYaml<V1CustomResourceDefinition>(readFileSync(file, 'utf8'));
  if (crd.kind !== 'CustomResourceDefinition' || !crd.metadata?.name) throw new Error(`${file} is not a CustomResourceDefinition with a name`);
  return crd;
}

/** Creates the CRD (or keeps it: within one run the files are those of the pinned release) and waits until it is Established. */
export async function installCrd(kubeConfig: KubeConfig, crd: V1CustomResourceDefinition, source = 'its file'): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = crd.metadata?.name ?? '';
  try {
    await api.createCustomResourceDefinition({ body: crd });
  } catch (error) {
    if (!/409|AlreadyExists/i.test(String(error))) throw new Error(`installing CRD ${name} from ${source}: ${String(error)}`);
  }
  await waitFor(`CRD ${name} Established`, async () => {
    const current = await api.readCustomResourceDefinition({ name });
    return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}
