import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { kueueCrdConversions } from '../../../../local/addons/kueue-crds';

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
