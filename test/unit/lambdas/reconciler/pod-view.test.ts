import { describe, expect, it } from 'vitest';
import { nodeView, podView, secondsSince } from '../../../../lambdas/reconciler/pod-view';

describe('podView', () => {
  const readyAt = new Date('2026-11-30T09:00:00Z');

  it('takes the Ready time from the Ready condition and the current cost from the annotation', () => {
    const view = podView({
      metadata: { namespace: 'serving', name: 'web-1', annotations: { 'controller.kubernetes.io/pod-deletion-cost': '250' } },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readyAt }] },
    });
    expect(view).toEqual({ namespace: 'serving', name: 'web-1', terminating: false, readySince: readyAt, currentCost: '250', currentKarpenterCost: undefined, controller: undefined });
    expect(secondsSince(view?.readySince, new Date('2026-11-30T09:05:00Z'))).toBe(300);
  });

  it('has no Ready time for a pod that is not Ready, and flags terminating pods', () => {
    const view = podView({
      metadata: { namespace: 'serving', name: 'web-2', deletionTimestamp: new Date() },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: readyAt }] },
    });
    expect(view).toMatchObject({ readySince: undefined, terminating: true, currentCost: undefined });
    expect(secondsSince(undefined, new Date())).toBeUndefined();
  });

  it('takes the controlling owner, not any owner', () => {
    const view = podView({
      metadata: {
        namespace: 'serving',
        name: 'web-3',
        ownerReferences: [
          { apiVersion: 'example.com/v1', kind: 'Tracker', name: 't', uid: 'u1' },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9', uid: 'u2', controller: true },
        ],
      },
    });
    expect(view?.controller).toEqual({ apiVersion: 'apps/v1', kind: 'ReplicaSet' });
    const adopted = podView({ metadata: { namespace: 'a', name: 'b', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u' }] } });
    expect(adopted?.controller).toBeUndefined();
  });

  it('ignores objects without namespace or name, and unparseable times', () => {
    expect(podView({ metadata: { name: 'x' } })).toBeUndefined();
    const view = podView({
      metadata: { namespace: 'a', name: 'b' },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date('garbage') }] },
    });
    expect(view?.readySince).toBeUndefined();
  });
});

describe('nodeView', () => {
  it('reads the EC2 instance id from an AWS providerID only', () => {
    expect(nodeView({ metadata: { name: 'n1' }, spec: { providerID: 'aws:///us-east-1a/i-0123456789abcdef0' } })).toEqual({
      name: 'n1',
      instanceId: 'i-0123456789abcdef0',
      annotations: {},
    });
    expect(nodeView({ metadata: { name: 'kind' }, spec: { providerID: 'kind://docker/kind/kind-worker' } })?.instanceId).toBeUndefined();
    expect(nodeView({ metadata: {} })).toBeUndefined();
  });
});
