import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { keepingInjectedCaBundle } from '../../../../local/addons/crds';

const crd = (caBundle?: string): V1CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'workloads.kueue.x-k8s.io' },
  spec: {
    group: 'kueue.x-k8s.io',
    names: { kind: 'Workload', plural: 'workloads' },
    scope: 'Namespaced',
    versions: [],
    conversion: {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'kueue-webhook-service', namespace: 'kueue-system', path: '/convert' }, ...(caBundle && { caBundle }) } },
    },
  },
});

describe('keepingInjectedCaBundle', () => {
  it("keeps the CA bundle a controller injected into the installed CRD's conversion webhook", () => {
    const kept = keepingInjectedCaBundle(crd(), crd('Q0E='));
    expect(kept.spec.conversion?.webhook?.clientConfig).toEqual({ service: { name: 'kueue-webhook-service', namespace: 'kueue-system', path: '/convert' }, caBundle: 'Q0E=' });
  });

  it('changes nothing when the installed CRD has no bundle, or the new one names no webhook client', () => {
    const fresh = crd();
    expect(keepingInjectedCaBundle(fresh, crd())).toBe(fresh);
    const noWebhook: V1CustomResourceDefinition = { ...fresh, spec: { ...fresh.spec, conversion: { strategy: 'None' } } };
    expect(keepingInjectedCaBundle(noWebhook, crd('Q0E='))).toBe(noWebhook);
  });
});
