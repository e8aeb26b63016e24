import { describe, expect, it } from 'vitest';
import { KUBERNETES_VERSIONS } from '../../../../cdk/app-config/app-config';
import { APP_CONFIG_DEFAULTS as D } from '../../../../cdk/app-config/app-config-defaults';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import { DEFAULT_NODE_REGISTRATION_WAIT_MS, NODE_REGISTRATION_MARGIN_MS } from '../../../../lambdas/labeler/config';

// The tags test proves the docs say what the table holds; this proves the
// table holds what parseAppConfig applies.

const EXISTING = {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['eu-west-1a', 'eu-west-1b'],
  privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
  clusterSecurityGroupId: 'sg-0123456789abcdef0',
};
const CERTIFICATE = { mutualTls: false, certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123', hostname: 'gpu-extender.internal.example.com' };

describe('parseAppConfig applies APP_CONFIG_DEFAULTS', () => {
  const config = parseAppConfig(undefined);

  it('at the top level, deriving the dashboard name from the cluster name', () => {
    expect(config).toMatchObject({
      stackName: D.stackName,
      clusterName: D.clusterName,
      kubernetesVersion: D.kubernetesVersion,
      logRetentionDays: D.logRetentionDays,
      dashboardName: `${D.clusterName}${D.dashboardNameSuffix}`,
    });
    expect(parseAppConfig({ clusterName: 'other' }).dashboardName).toBe(`other${D.dashboardNameSuffix}`);
  });

  it('to a new cluster, its system group and its default Karpenter NodePools, with no GPU node group', () => {
    const { gpuNodeGroups: _groups, eachGpuNodeGroup: _each, eachTaint: _eachTaint, existing: _existing, karpenter, ...cluster } = D.cluster;
    const { eachNodePool, nodePools, ...nodeClass } = karpenter;
    expect(config.cluster).toEqual({ ...cluster, gpuNodeGroups: [], karpenter: { ...nodeClass, nodePools: nodePools.map((pool) => ({ ...eachNodePool, ...pool })) } });
  });

  it('to the default GPU groups when node groups provide GPU capacity', () => {
    const groups = parseAppConfig({ cluster: { gpuCapacity: 'node-groups' } });
    if (groups.cluster.mode !== 'new') throw new Error('unreachable');
    expect(groups.cluster.gpuNodeGroups).toEqual(D.cluster.gpuNodeGroups.map((group) => ({ ...D.cluster.eachGpuNodeGroup, ...group })));
  });

  it('to every listed NodePool and disruption budget, listed types replacing the default families', () => {
    const listed = parseAppConfig({ cluster: { karpenter: { nodePools: [{}, { name: 'h100', instanceTypes: ['p5.48xlarge'], disruptionBudgets: [{ nodes: '1' }] }] } } });
    if (listed.cluster.mode !== 'new') throw new Error('unreachable');
    const each = D.cluster.karpenter.eachNodePool;
    expect(listed.cluster.karpenter.nodePools).toEqual([
      each,
      { ...each, name: 'h100', instanceFamilies: [], instanceTypes: ['p5.48xlarge'], disruptionBudgets: [{ nodes: '1', reasons: undefined, schedule: undefined, duration: undefined }] },
    ]);
  });

  it('to every listed GPU group and taint', () => {
    const listed = parseAppConfig({ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{}, { name: 'tainted', taints: [{ key: 'a' }] }] } });
    if (listed.cluster.mode !== 'new') throw new Error('unreachable');
    expect(listed.cluster.gpuNodeGroups).toEqual([
      D.cluster.eachGpuNodeGroup,
      { ...D.cluster.eachGpuNodeGroup, name: 'tainted', taints: [{ key: 'a', ...D.cluster.eachTaint }] },
    ]);
  });

  it('to an existing cluster', () => {
    const existing = parseAppConfig({ cluster: { mode: 'existing', existing: EXISTING } });
    expect(existing.cluster).toEqual({ mode: 'existing', ...D.cluster.existing, ...EXISTING });
  });

  it('to the add-ons and the second scheduler, whose version follows the cluster version', () => {
    expect(config.addons).toEqual({ ...D.addons, cloudWatchObservability: { ...D.addons.cloudWatchObservability, addonVersion: undefined } });
    expect(config.scheduler).toEqual({ ...D.scheduler, kubeSchedulerVersion: D.scheduler.kubeSchedulerVersion[D.kubernetesVersion], leaseName: D.scheduler.name });
    for (const version of KUBERNETES_VERSIONS) {
      expect(parseAppConfig({ kubernetesVersion: version }).scheduler.kubeSchedulerVersion).toBe(D.scheduler.kubeSchedulerVersion[version]);
    }
  });

  it('to the functions, the extender listening on HTTPS with mutual TLS or a certificate, on HTTP only when opted out', () => {
    const { listenerPort, ...extender } = D.extender;
    expect(config.extender).toEqual({ ...extender, listenerPort: listenerPort.withCertificate, certificateArn: undefined, hostname: undefined });
    expect(config.extender.mutualTls).toBe(true);
    expect(parseAppConfig({ extender: CERTIFICATE }).extender.listenerPort).toBe(listenerPort.withCertificate);
    expect(parseAppConfig({ extender: { mutualTls: false } }).extender.listenerPort).toBe(listenerPort.withoutCertificate);
    expect(config.labeler).toEqual(D.labeler);
    expect(config.reconciler).toEqual(D.reconciler);
  });

  it('giving the labeler time to wait its full default for a node to register, then label it', () => {
    // Otherwise the wait is cut to the timeout (less the margin) and normal late registrations end as NodesNotRegistered.
    expect(D.labeler.timeoutSeconds * 1000).toBeGreaterThanOrEqual(DEFAULT_NODE_REGISTRATION_WAIT_MS + NODE_REGISTRATION_MARGIN_MS);
    expect(D.labeler.timeoutSeconds).toBeLessThan(D.labeler.scheduleMinutes * 60);
  });

  it('to the alarms', () => {
    expect(config.alarms).toEqual(D.alarms);
  });

  it('without handing out the table itself, so a caller cannot change later defaults', () => {
    if (config.cluster.mode !== 'new') throw new Error('unreachable');
    expect(config.cluster.publicAccessCidrs).not.toBe(D.cluster.publicAccessCidrs);
    expect(config.cluster.systemNodeGroup.labels).not.toBe(D.cluster.systemNodeGroup.labels);
    expect(config.extender.environment).not.toBe(D.extender.environment);
  });
});
