import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../cdk/config/parse-app-config';
import { NewGpuCluster } from '../../../cdk/lib/cluster/new-gpu-cluster';

// The cluster construct alone (no Lambdas, so no bundling) with the options
// the default-config stack test does not exercise.
const ADMIN = 'arn:aws:iam::123456789012:role/platform-admins';
const outdir = mkdtempSync(join(tmpdir(), 'gpu-cluster-'));
let template: Template;

beforeAll(() => {
  const config = parseAppConfig({
    cluster: {
      endpointAccess: 'public-and-private',
      publicAccessCidrs: ['203.0.113.0/24'],
      adminPrincipalArns: [ADMIN],
      availabilityZones: ['us-west-2a', 'us-west-2b', 'us-west-2c'],
      natGateways: 3,
      gpuNodeGroups: [
        { name: 'h100', instanceTypes: ['p5.48xlarge'], capacityType: 'ON_DEMAND', labels: { team: 'research' }, taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }] },
        { name: 'l4-spot', instanceTypes: ['g6.xlarge', 'g6.2xlarge'], capacityType: 'SPOT', minSize: 0, maxSize: 10, desiredSize: 0 },
      ],
    },
  });
  if (config.cluster.mode !== 'new') throw new Error('expected a new-cluster config');
  const app = new App({ outdir });
  const stack = new Stack(app, 'ClusterOnly');
  new NewGpuCluster(stack, 'Cluster', { clusterName: 'research-gpu', kubernetesVersion: '1.34', config: config.cluster, logRetention: 14 });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  template = Template.fromJSON(JSON.parse(readFileSync(join(outdir, 'ClusterOnly.template.json'), 'utf8')) as Record<string, unknown>);
}, 300_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('NewGpuCluster options', () => {
  it('opens the public endpoint only to the listed CIDRs (an acknowledged cdk-nag finding)', () => {
    template.hasResourceProperties('AWS::EKS::Cluster', {
      Version: '1.34',
      ResourcesVpcConfig: Match.objectLike({ EndpointPublicAccess: true, EndpointPrivateAccess: true, PublicAccessCidrs: ['203.0.113.0/24'] }),
    });
  });

  it('gives the listed operators cluster-admin through access entries', () => {
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      PrincipalArn: ADMIN,
      AccessPolicies: [Match.objectLike({ AccessScope: { Type: 'cluster' } })],
    });
    const entries = Object.values(template.findResources('AWS::EKS::AccessEntry')) as { Properties: { PrincipalArn: unknown; AccessPolicies: unknown } }[];
    const admin = entries.find((entry) => entry.Properties.PrincipalArn === ADMIN);
    expect(JSON.stringify(admin?.Properties.AccessPolicies)).toContain(':cluster-access-policy/AmazonEKSClusterAdminPolicy');
  });

  it('creates one managed node group per GPU group, with capacity type, labels and taints', () => {
    template.resourceCountIs('AWS::EKS::Nodegroup', 3);
    template.hasResourceProperties('AWS::EKS::Nodegroup', {
      InstanceTypes: ['p5.48xlarge'],
      CapacityType: 'ON_DEMAND',
      Labels: { team: 'research', 'gpu-scheduling/accelerator': 'nvidia', 'gpu-scheduling/node-group': 'h100' },
      Taints: [{ Key: 'nvidia.com/gpu', Value: 'true', Effect: 'NO_SCHEDULE' }],
    });
    template.hasResourceProperties('AWS::EKS::Nodegroup', {
      InstanceTypes: ['g6.xlarge', 'g6.2xlarge'],
      CapacityType: 'SPOT',
      ScalingConfig: { MinSize: 0, MaxSize: 10, DesiredSize: 0 },
      // GPU groups are tainted unless the config says `taints: []`.
      Taints: [{ Key: 'nvidia.com/gpu', Value: 'true', Effect: 'NO_SCHEDULE' }],
    });
  });

  it('spreads the VPC over the named zones with a NAT gateway in each', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 3);
    template.hasResourceProperties('AWS::EC2::Subnet', { AvailabilityZone: 'us-west-2c' });
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/eks/research-gpu/cluster', RetentionInDays: 14 });
  });
});

describe('rejected combinations', () => {
  it('refuses admin principals for an attached cluster', () => {
    expect(() => parseAppConfig({ cluster: { mode: 'existing', adminPrincipalArns: [ADMIN] } })).toThrow(/cluster\.adminPrincipalArns: is only allowed when cluster\.mode is "new"/);
  });
});
