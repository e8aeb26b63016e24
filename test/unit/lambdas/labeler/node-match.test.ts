import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { findNodeForInstance, instanceIdFromProviderId, isTaggedForCluster, providerIdFor } from '../../../../lambdas/labeler/node-match';

function node(name: string, providerID?: string, internalDns?: string): V1Node {
  return {
    metadata: { name },
    ...(providerID ? { spec: { providerID } } : {}),
    ...(internalDns ? { status: { addresses: [{ type: 'InternalDNS', address: internalDns }] } } : {}),
  };
}

describe('instanceIdFromProviderId', () => {
  it('reads EKS providerIDs', () => {
    expect(instanceIdFromProviderId('aws:///us-east-1a/i-0abc123')).toBe('i-0abc123');
    expect(providerIdFor('us-east-1a', 'i-0abc123')).toBe('aws:///us-east-1a/i-0abc123');
  });
  it.each([undefined, '', 'gce://p/z/n', 'aws:///us-east-1a/fargate-ip-10-0-0-1', 'kwok://node'])('ignores %j', (id) => {
    expect(instanceIdFromProviderId(id)).toBeUndefined();
  });
});

describe('findNodeForInstance', () => {
  const instance = { instanceId: 'i-0aaa', privateDnsName: 'ip-10-0-0-1.ec2.internal' };

  it('matches by providerID first', () => {
    const nodes = [node('ip-10-0-0-1.ec2.internal'), node('custom-name', 'aws:///us-east-1a/i-0aaa')];
    expect(findNodeForInstance(nodes, instance)?.metadata?.name).toBe('custom-name');
  });
  it('falls back to the private DNS name (name or InternalDNS address) for nodes without providerID', () => {
    expect(findNodeForInstance([node('ip-10-0-0-1.ec2.internal')], instance)?.metadata?.name).toBe('ip-10-0-0-1.ec2.internal');
    expect(findNodeForInstance([node('gpu-7', undefined, 'ip-10-0-0-1.ec2.internal')], instance)?.metadata?.name).toBe('gpu-7');
  });
  it('never takes a node that belongs to another instance, even with the same name', () => {
    expect(findNodeForInstance([node('ip-10-0-0-1.ec2.internal', 'aws:///us-east-1a/i-0bbb')], instance)).toBeUndefined();
  });
});

describe('isTaggedForCluster', () => {
  it.each([
    [{ 'kubernetes.io/cluster/prod': 'owned' }, true],
    [{ 'eks:cluster-name': 'prod' }, true],
    [{ 'aws:eks:cluster-name': 'prod' }, true],
    [{ 'eks:eks-cluster-name': 'prod' }, true],
    [{ 'eks:cluster-name': 'staging' }, false],
    [{ 'kubernetes.io/cluster/staging': 'owned' }, false],
    [{}, false],
  ])('%j → %s', (tags, expected) => {
    expect(isTaggedForCluster(tags, 'prod')).toBe(expected);
  });
});
