// Kueue's controller manager (the main package sigs.k8s.io/kueue/cmd/kueue)
// at the release go-modules/kueue-binaries/go.mod pins, beside the CRDs,
// their kustomization (the conversion webhooks a release installs) and the
// webhook configurations of the same module.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGoBuild, findGoBuild, pinOf, type GoBuild, type GoBuildSpec, type Pin } from './go-build';

export interface KueueBinaries {
  version: string;
  binary: string;
  /** Directory holding the module's CRD files. */
  crdDir: string;
  crdFiles: string[];
  /** The module's MutatingWebhookConfiguration and ValidatingWebhookConfiguration (one YAML stream). */
  webhookManifests: string;
  /** The CRDs' kustomization.yaml, beside its `patches/` (the conversion webhooks a release installs). */
  crdKustomization: string;
}

export const KUEUE_BUILD: GoBuildSpec = {
  name: 'kueue',
  purpose: 'Kueue (sigs.k8s.io/kueue/cmd/kueue)',
  moduleDir: join(import.meta.dirname, 'go-modules', 'kueue-binaries'),
  module: 'sigs.k8s.io/kueue',
  packages: ['sigs.k8s.io/kueue/cmd/kueue'],
  copies: [
    // Every CRD Kueue's manifests install (its controllers watch all of them, MultiKueue's included).
    { from: 'config/components/crd/bases', to: 'crds' },
    // The kustomization that turns on the CRDs' conversion webhooks, and its patches.
    { from: 'config/components/crd/kustomization.yaml', to: 'crd-kustomization/kustomization.yaml' },
    { from: 'config/components/crd/patches', to: 'crd-kustomization/patches' },
    // The admission webhooks the release registers (kustomize's input: names and service unprefixed).
    { from: 'config/components/webhook/manifests.yaml', to: 'webhooks.yaml' },
  ],
};

/** The Kueue release (and Go toolchain: `local` when go.mod names none) go.mod pins. */
export const pinnedKueue = (): Pin => pinOf(KUEUE_BUILD);

function kueueBinaries(build: GoBuild): KueueBinaries {
  const crdDir = join(build.dir, 'crds');
  const crdFiles = existsSync(crdDir)
    ? readdirSync(crdDir)
        .filter((file) => file.endsWith('.yaml'))
        .sort()
        .map((file) => join(crdDir, file))
    : [];
  return {
    version: build.version,
    binary: build.binary('kueue'),
    crdDir,
    crdFiles,
    webhookManifests: join(build.dir, 'webhooks.yaml'),
    crdKustomization: join(build.dir, 'crd-kustomization', 'kustomization.yaml'),
  };
}

/** The cached build for the pinned version, or undefined when it has not been built yet. */
export function findKueueBinaries(env: NodeJS.ProcessEnv = process.env): KueueBinaries | undefined {
  const build = findGoBuild(KUEUE_BUILD, env);
  return build && kueueBinaries(build);
}

/** Returns the cached build, building it first when needed. */
export async function ensureKueueBinaries(log: (message: string) => void = console.log): Promise<KueueBinaries> {
  return kueueBinaries(await ensureGoBuild(KUEUE_BUILD, log));
}
