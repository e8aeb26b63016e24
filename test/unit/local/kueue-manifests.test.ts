import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { pinnedKueue } from '../../../local/build-kueue';
import { kueueCrdConversions } from '../../../local/kueue-crds';
import { kueueWebhookConfigurations } from '../../../local/kueue-webhooks';

const root = join(import.meta.dirname, '..', '..', '..');

describe('pinnedKueue', () => {
  it('reads the Kueue release from local/kueue-binaries/go.mod (no toolchain line: the installed Go builds it)', () => {
    const pinned = pinnedKueue();
    expect(pinned).toEqual({ version: 'v0.17.0', toolchain: 'local' });
    expect(readFileSync(join(root, 'local/kueue-binaries/go.sum'), 'utf8')).toContain(`sigs.k8s.io/kueue ${pinned.version} h1:`);
  });
});

/** A webhook as the module's manifests.yaml lists it (kustomize's input). */
const webhook = (name: string, path: string) => ({
  admissionReviewVersions: ['v1'],
  clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
  failurePolicy: 'Fail',
  name,
  rules: [],
  sideEffects: 'None',
});

describe('kueueWebhookConfigurations', () => {
  it("keeps the Job integration's and Kueue's own webhooks, renamed and pointed at the local Service", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kueue-webhooks-'));
    const file = join(dir, 'manifests.yaml');
    writeFileSync(
      file,
      [
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'mutating-webhook-configuration' }, webhooks: [webhook('mjob.kb.io', '/mutate-batch-v1-job'), webhook('mpod.kb.io', '/mutate--v1-pod'), webhook('mworkload.kb.io', '/mutate-kueue-x-k8s-io-v1beta2-workload')] },
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'validating-webhook-configuration' }, webhooks: [webhook('vjob.kb.io', '/validate-batch-v1-job'), webhook('vrayjob.kb.io', '/validate-ray-io-v1-rayjob')] },
      ]
        .map((doc) => `---\n${stringify(doc)}`)
        .join(''),
    );
    const { mutating, validating } = kueueWebhookConfigurations(file);
    expect(mutating.metadata?.name).toBe('kueue-mutating-webhook-configuration');
    expect(mutating.webhooks?.map((w) => w.name)).toEqual(['mjob.kb.io', 'mworkload.kb.io']);
    expect(validating.webhooks?.map((w) => w.name)).toEqual(['vjob.kb.io']);
    expect(mutating.webhooks?.[0]?.clientConfig).toEqual({ service: { name: 'kueue-webhook-service', namespace: 'kueue-system', path: '/mutate-batch-v1-job' } });
  });

  it('refuses a file that is not a release\'s webhook manifests', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kueue-webhooks-'));
    writeFileSync(join(dir, 'empty.yaml'), '---\nkind: ConfigMap\n');
    expect(() => kueueWebhookConfigurations(join(dir, 'empty.yaml'))).toThrow(/lacks a MutatingWebhookConfiguration/);
  });
});

describe('kueueCrdConversions', () => {
  it('gives the CRDs the active patches name their conversion webhook on the local Service, and refuses a kustomization without any', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kueue-crds-'));
    mkdirSync(join(dir, 'patches'));
    const patch = (crd: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crd }, spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/convert' } }, conversionReviewVersions: ['v1'] } } } });
    writeFileSync(join(dir, 'patches', 'webhook_in_workloads.yaml'), stringify(patch('workloads.kueue.x-k8s.io')));
    writeFileSync(join(dir, 'patches', 'webhook_in_resourceflavors.yaml'), stringify(patch('resourceflavors.kueue.x-k8s.io')));
    // The release comments the resourceflavors patch out.
    writeFileSync(join(dir, 'kustomization.yaml'), 'patches:\n- path: patches/webhook_in_workloads.yaml\n#- path: patches/webhook_in_resourceflavors.yaml\n');
    const conversions = kueueCrdConversions(join(dir, 'kustomization.yaml'), { name: 'kueue-webhook-service', namespace: 'kueue-system' });
    expect([...conversions.keys()]).toEqual(['workloads.kueue.x-k8s.io']);
    expect(conversions.get('workloads.kueue.x-k8s.io')?.webhook?.clientConfig?.service).toEqual({ name: 'kueue-webhook-service', namespace: 'kueue-system', path: '/convert' });
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: []\n');
    expect(() => kueueCrdConversions(join(dir, 'kustomization.yaml'), { name: 's', namespace: 'n' })).toThrow(/patches no CRD/);
  });
});
