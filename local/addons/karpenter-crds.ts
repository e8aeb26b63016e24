// Installs the CRDs of the built Karpenter module (local/builds/karpenter-binaries.ts)
// into the local kube-apiserver, as its Helm chart would.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KarpenterBinaries } from '../builds/karpenter-binaries';
import { installCrd, readCrdFile } from './crds';

/** Installs (or keeps: the files are those of the pinned release) each CRD and waits until it is Established. */
export async function installKarpenterCrds(kubeConfig: KubeConfig, binaries: KarpenterBinaries): Promise<void> {
  for (const file of binaries.crdFiles) await installCrd(kubeConfig, readCrdFile(file), file);
}
