import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { kueueWebhookConfigurations } from '../../../../local/addons/kueue-webhooks';

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
