import { describe, expect, it } from 'vitest';
import { APP_CONFIG_DEFAULTS as D } from '../../../../cdk/app-config/app-config-defaults';
import { KUBERNETES_VERSIONS } from '../../../../cdk/app-config/app-config';
import { KUBERNETES_RELEASES } from '../../../../cdk/app-config/kubernetes-releases';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import { DEFAULT_NODE_REGISTRATION_WAIT_MS, NODE_REGISTRATION_MARGIN_MS } from '../../../../lambdas/labeler/config';

// The schema holds every default; these are the ones that are not one value
// but follow from other settings, and the defaults other code relies on.

const EXISTING = {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
  clusterSecurityGroupId: 'sg-0123456789abcdef0',
};
const CERTIFICATE = { mutualTls: false, certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123', hostname: 'gpu-extender.internal.example.com' };

function newCluster(raw: unknown) {
  const { cluster } = parseAppConfig(raw);
  if (cluster.mode !== 'new') throw new Error('expected a new cluster');
  return cluster;
}

describe('APP_CONFIG_DEFAULTS', () => {
  it('is what a config that sets nothing parses to', () => {
    expect(D).toEqual(parseAppConfig(undefined));
    expect(parseAppConfig({})).toEqual(D);
  });

  it('derives the dashboard name and the lease name from the names given', () => {
    expect(D.dashboardName).toBe('gpu-scheduling-gpu-scheduling');
    expect(parseAppConfig({ clusterName: 'other' }).dashboardName).toBe('other-gpu-scheduling');
    expect(D.scheduler.leaseName).toBe(D.scheduler.name);
    expect(parseAppConfig({ scheduler: { name: 'gpus' } }).scheduler.leaseName).toBe('gpus');
  });

  it('runs the kube-scheduler release of the cluster version, from the one table', () => {
    for (const version of KUBERNETES_VERSIONS) {
      expect(parseAppConfig({ kubernetesVersion: version }).scheduler.kubeSchedulerVersion).toBe(KUBERNETES_RELEASES[version]);
    }
  });

  it('listens on HTTPS with mutual TLS or a certificate, on HTTP only when opted out', () => {
    expect(D.extender).toMatchObject({ mutualTls: true, listenerPort: 443 });
    expect(parseAppConfig({ extender: CERTIFICATE }).extender.listenerPort).toBe(443);
    expect(parseAppConfig({ extender: { mutualTls: false } }).extender.listenerPort).toBe(80);
    expect(parseAppConfig({ extender: { mutualTls: false, listenerPort: 8080 } }).extender.listenerPort).toBe(8080);
  });

  it('creates GPU node groups only when they provide the GPU capacity, each with the GPU taint', () => {
    expect(newCluster({}).gpuNodeGroups).toEqual([]);
    const [group, ...more] = newCluster({ cluster: { gpuCapacity: 'node-groups' } }).gpuNodeGroups;
    expect(more).toEqual([]);
    expect(group).toEqual({
      name: 'gpu',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      minSize: 0,
      maxSize: 4,
      desiredSize: 1,
      diskSizeGiB: 100,
      capacityType: 'ON_DEMAND',
      labels: {},
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    });
  });

  it('moves a default desired size into the group\'s bounds', () => {
    const groups = newCluster({ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ name: 'a', minSize: 3, maxSize: 5 }, { name: 'b', maxSize: 1 }, { name: 'c', minSize: 0, maxSize: 1, desiredSize: 0 }] } }).gpuNodeGroups;
    expect(groups.map((group) => group.desiredSize)).toEqual([3, 1, 0]);
    expect(newCluster({ cluster: { systemNodeGroup: { minSize: 3, maxSize: 4 } } }).systemNodeGroup).toMatchObject({ name: 'system', desiredSize: 3 });
  });

  it('gives a NodePool the default families unless it lists exact types, and a taint its defaults', () => {
    const pools = newCluster({ cluster: { karpenter: { nodePools: [{}, { name: 'h100', instanceTypes: ['p5.48xlarge'], taints: [{ key: 'a' }] }] } } }).karpenter.nodePools;
    expect(pools[0]).toMatchObject({ name: 'gpu', instanceFamilies: ['g5', 'g6', 'g6e'], instanceTypes: [], disruptionBudgets: [{ nodes: '10%' }] });
    expect(pools[1]).toMatchObject({ instanceFamilies: [], instanceTypes: ['p5.48xlarge'], taints: [{ key: 'a', value: '', effect: 'NO_SCHEDULE' }] });
  });

  it('fills an existing cluster\'s optional keys', () => {
    expect(parseAppConfig({ cluster: { mode: 'existing', existing: EXISTING } }).cluster).toEqual({ mode: 'existing', ...EXISTING, gpuCapacity: 'node-groups', installPodIdentityAgent: false });
  });

  it('gives the labeler time to wait its full default for a node to register, then label it', () => {
    // Otherwise the wait is cut to the timeout (less the margin) and normal late registrations end as NodesNotRegistered.
    expect(D.labeler.timeoutSeconds * 1000).toBeGreaterThanOrEqual(DEFAULT_NODE_REGISTRATION_WAIT_MS + NODE_REGISTRATION_MARGIN_MS);
    expect(D.labeler.timeoutSeconds).toBeLessThan(D.labeler.scheduleMinutes * 60);
  });

  it('hands every parse its own lists and maps, so a caller cannot change later defaults', () => {
    const first = newCluster({});
    const second = newCluster({});
    expect(first.publicAccessCidrs).not.toBe(second.publicAccessCidrs);
    expect(first.systemNodeGroup.labels).not.toBe(second.systemNodeGroup.labels);
    expect(first.karpenter.nodePools[0]?.taints).not.toBe(second.karpenter.nodePools[0]?.taints);
    expect(parseAppConfig({}).extender.environment).not.toBe(parseAppConfig({}).extender.environment);
  });
});
