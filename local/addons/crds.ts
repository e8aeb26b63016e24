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

export interface InstallCrdOptions {
  /**
   * An existing CRD of the same name is replaced by this one (kept, by
   * default: within one run the files are those of the pinned release). The
   * CA bundle a controller injected into the existing CRD's conversion
   * webhook is kept, in case that webhook already serves (Kueue's).
   */
  readonly replace?: boolean;
}

/** `crd` with the conversion webhook's CA bundle `current` carries, when both name a webhook client. */
export function keepingInjectedCaBundle(crd: V1CustomResourceDefinition, current: V1CustomResourceDefinition): V1CustomResourceDefinition {
  const caBundle = current.spec.conversion?.webhook?.clientConfig?.caBundle;
  const webhook = crd.spec.conversion?.webhook;
  if (!caBundle || !webhook?.clientConfig) return crd;
  return { ...crd, spec: { ...crd.spec, conversion: { ...crd.spec.conversion, strategy: crd.spec.conversion?.strategy ?? 'Webhook', webhook: { ...webhook, clientConfig: { ...webhook.clientConfig, caBundle } } } } };
}

/** Creates the CRD (or keeps or replaces the one there) and waits until it is Established. */
export async function installCrd(kubeConfig: KubeConfig, crd: V1CustomResourceDefinition, source = 'its file', options: InstallCrdOptions = {}): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = crd.metadata?.name ?? '';
  try {
    await api.createCustomResourceDefinition({ body: crd });
  } catch (error) {
    if (!/409|AlreadyExists/i.test(String(error))) throw new Error(`installing CRD ${name} from ${source}: ${String(error)}`);
    if (options.replace) {
      const current = await api.readCustomResourceDefinition({ name });
      const body = keepingInjectedCaBundle(crd, current);
      await api.replaceCustomResourceDefinition({ name, body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } } });
    }
  }
  await waitFor(`CRD ${name} Established`, async () => {
    const current = await api.readCustomResourceDefinition({ name });
    return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}
