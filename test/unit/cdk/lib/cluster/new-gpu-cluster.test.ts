import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionEnvironment } from '../../../../../cdk/app-config/function-environment';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import { NewGpuCluster } from '../../../../../cdk/lib/cluster/new-gpu-cluster';
import { PipelineFunction } from '../../../../../cdk/lib/functions/pipeline-function';
import { STARTUP_TAINT } from '../../../../../lambdas/labeler/startup-taint';
import { cdkJsonContext, WITHOUT_BUNDLING } from '../../support/cdk-json';
import { runCfnLint } from '../../support/cfn-lint';

// The cluster construct with one pipeline Lambda (bundling switched off: the
// assertions are about the infrastructure) and the options the default-config
// stack test does not exercise.
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
      awsApiAccess: 'vpc-endpoints',
      gpuCapacity: 'node-groups',
      gpuNodeGroups: [
        { name: 'h100', instanceTypes: ['p5.48xlarge'], capacityType: 'ON_DEMAND', labels: { team: 'research' }, taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }] },
        { name: 'l4-spot', instanceTypes: ['g6.xlarge', 'g6.2xlarge'], capacityType: 'SPOT', minSize: 0, maxSize: 10, desiredSize: 0 },
      ],
      gpuNodeStartupTaint: true,
    },
  });
  if (config.cluster.mode !== 'new') throw new Error('expected a new-cluster config');
  const app = new App({ outdir, context: { ...cdkJsonContext(), ...WITHOUT_BUNDLING } });
  const stack = new Stack(app, 'ClusterOnly');
  const target = new NewGpuCluster(stack, 'Cluster', { clusterName: 'research-gpu', kubernetesVersion: '1.35', config: config.cluster, logRetention: 14 });
  new PipelineFunction(stack, 'Labeler', { name: 'labeler', description: 'test', target, config: config.labeler, environment: functionEnvironment(config, 'labeler'), logRetention: 14 });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  template = Template.fromJSON(JSON.parse(readFileSync(join(outdir, 'ClusterOnly.template.json'), 'utf8')) as Record<string, unknown>);
}, 300_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('NewGpuCluster options', () => {
  it('opens the public endpoint only to the listed CIDRs (an acknowledged cdk-nag finding)', () => {
    template.hasResourceProperties('AWS::EKS::Cluster', {
      Version: '1.35',
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

  it('creates one managed node group per GPU group, with capacity type, labels and taints (and the start-up taint last)', () => {
    // The taint the labeler lifts, as EKS spells the effect.
    const startup = { Key: STARTUP_TAINT.key, Value: STARTUP_TAINT.value, Effect: 'NO_SCHEDULE' };
    expect(STARTUP_TAINT.effect).toBe('NoSchedule');
    template.resourceCountIs('AWS::EKS::Nodegroup', 3);
    template.hasResourceProperties('AWS::EKS::Nodegroup', {
      InstanceTypes: ['p5.48xlarge'],
      CapacityType: 'ON_DEMAND',
      Labels: { team: 'research', 'gpu-scheduling/accelerator': 'nvidia', 'gpu-scheduling/node-group': 'h100' },
      Taints: [{ Key: 'nvidia.com/gpu', Value: 'true', Effect: 'NO_SCHEDULE' }, startup],
    });
    template.hasResourceProperties('AWS::EKS::Nodegroup', {
      InstanceTypes: ['g6.xlarge', 'g6.2xlarge'],
      CapacityType: 'SPOT',
      ScalingConfig: { MinSize: 0, MaxSize: 10, DesiredSize: 0 },
      // GPU groups are tainted unless the config says `taints: []`.
      Taints: [{ Key: 'nvidia.com/gpu', Value: 'true', Effect: 'NO_SCHEDULE' }, startup],
    });
    // The system group runs what must not wait for GPU labels.
    template.hasResourceProperties('AWS::EKS::Nodegroup', { AmiType: 'AL2023_x86_64_STANDARD', Taints: [] });
  });

  it('spreads the VPC over the named zones with a NAT gateway in each', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 3);
    template.hasResourceProperties('AWS::EC2::Subnet', { AvailabilityZone: 'us-west-2c' });
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/eks/research-gpu/cluster', RetentionInDays: 14 });
  });
});

describe('GPU instance types, checked against EC2 at deploy time', () => {
  const checks = (): [string, { Properties: { Setting: string; InstanceTypes: string[] } }][] =>
    Object.entries(template.findResources('Custom::GpuInstanceTypes')) as [string, { Properties: { Setting: string; InstanceTypes: string[] } }][];

  it('asks one check per GPU group, naming the setting a failure reports', () => {
    expect(checks().map(([, check]) => check.Properties)).toEqual([
      expect.objectContaining({ Setting: 'cluster.gpuNodeGroups[0].instanceTypes', InstanceTypes: ['p5.48xlarge'] }),
      expect.objectContaining({ Setting: 'cluster.gpuNodeGroups[1].instanceTypes', InstanceTypes: ['g6.xlarge', 'g6.2xlarge'] }),
    ]);
  });

  it("gives each GPU group the AMI type its check answers, and the cluster waits for every check", () => {
    for (const [id, check] of checks()) {
      template.hasResourceProperties('AWS::EKS::Nodegroup', { InstanceTypes: check.Properties.InstanceTypes, AmiType: { 'Fn::GetAtt': [id, 'AmiType'] } });
    }
    const [cluster] = Object.values(template.findResources('AWS::EKS::Cluster')) as { DependsOn?: string[] }[];
    for (const [id] of checks()) expect(cluster?.DependsOn, id).toContain(id);
  });

  it('runs the check outside the VPC, allowed to read instance types and write its own logs only', () => {
    type CheckFunction = { Properties: { VpcConfig?: unknown; Role: { 'Fn::GetAtt': [string, string] }; Runtime: string } };
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('DescribeInstanceTypes') } })) as CheckFunction[];
    if (fn === undefined) throw new Error('no instance-type check function');
    expect(fn.Properties.VpcConfig).toBeUndefined();
    expect(fn.Properties.Runtime).toBe('nodejs22.x');
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: { Action: string | string[] }[] } } }[];
    const actions = policies.filter((policy) => policy.Properties.Roles.some((role) => role.Ref === roleId)).flatMap((policy) => policy.Properties.PolicyDocument.Statement.flatMap((statement) => statement.Action));
    expect(new Set(actions)).toEqual(new Set(['ec2:DescribeInstanceTypes', 'logs:CreateLogStream', 'logs:PutLogEvents']));
    const role = template.findResources('AWS::IAM::Role')[roleId] as { Properties: { ManagedPolicyArns?: unknown } } | undefined;
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('AWS APIs through VPC endpoints', () => {
  it('creates private-DNS interface endpoints for EKS, EC2 and CloudWatch, open to the VPC on 443', () => {
    const endpoints = Object.values(template.findResources('AWS::EC2::VPCEndpoint')) as { Properties: { ServiceName: unknown; PrivateDnsEnabled: boolean; VpcEndpointType: string } }[];
    expect(endpoints.map((e) => JSON.stringify(e.Properties.ServiceName).match(/\.(eks|ec2|monitoring)"/)?.[1]).sort()).toEqual(['ec2', 'eks', 'monitoring']);
    for (const endpoint of endpoints) expect(endpoint.Properties).toMatchObject({ PrivateDnsEnabled: true, VpcEndpointType: 'Interface' });
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('interface endpoints'),
      SecurityGroupIngress: [Match.objectLike({ FromPort: 443, ToPort: 443, CidrIp: Match.anyValue() })],
    });
  });

  it('lets the Lambda out only to the endpoints and the cluster API, never to any address', () => {
    const groups = template.findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('labeler Lambda') } });
    const [lambdaGroupId, lambdaGroup] = Object.entries(groups)[0] ?? [];
    expect(JSON.stringify(lambdaGroup)).not.toContain('0.0.0.0/0');
    const egress = Object.values(template.findResources('AWS::EC2::SecurityGroupEgress')) as { Properties: { GroupId: unknown; FromPort: number; DestinationSecurityGroupId: unknown } }[];
    const fromLambda = egress.filter((rule) => JSON.stringify(rule.Properties.GroupId).includes(lambdaGroupId ?? '-'));
    expect(fromLambda.map((rule) => rule.Properties.FromPort)).toEqual([443, 443]);
    expect(fromLambda.map((rule) => JSON.stringify(rule.Properties.DestinationSecurityGroupId)).join()).toMatch(/AwsApiEndpointSecurityGroup.*ClusterSecurityGroupId|ClusterSecurityGroupId.*AwsApiEndpointSecurityGroup/);
  });
});

describe('checks', () => {
  // The default stack now gets GPU nodes from Karpenter; this is where the managed GPU groups and their check meet cfn-lint.
  it('passes cfn-lint with no errors', () => {
    expect(runCfnLint([join(outdir, 'ClusterOnly.template.json')]).filter((finding) => finding.Level === 'Error')).toEqual([]);
    // cfn-lint takes 10-90 s of a shared 2-core machine: a run's length is not what this checks.
  }, 600_000);
});

describe('rejected combinations', () => {
  it('refuses admin principals for an attached cluster', () => {
    expect(() => parseAppConfig({ cluster: { mode: 'existing', adminPrincipalArns: [ADMIN] } })).toThrow(/cluster\.adminPrincipalArns: is only allowed when cluster\.mode is "new"/);
  });
});
