import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_KUBERNETES_ACCESS } from '../../../../cdk/lib/access/lambda-rbac-rules';
import { runCfnLint } from '../support/cfn-lint';
import { expectOnlyEmittedMetrics, expectOnlyKnownSearches } from '../support/metric-coverage';
import { alarmReferences, dashboardReferences } from '../support/referenced-metrics';
import type { Synthesized } from '../support/synthesize';
import { findObject, kubernetesObjects, resourcesOfType, synthesize } from '../support/synthesize';

const CLUSTER_SG = 'sg-0123456789abcdef0';
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'];
const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f3e2a8c-1111-2222-3333-444455556666';

// One synth for the file: an existing cluster, HTTPS extender, SNS alarms,
// the device plugin switched off and non-default settings everywhere.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({
    clusterName: 'prod-gpu',
    kubernetesVersion: '1.35',
    logRetentionDays: 90,
    cluster: {
      mode: 'existing',
      existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['eu-west-1a', 'eu-west-1b'], privateSubnetIds: SUBNETS, clusterSecurityGroupId: CLUSTER_SG, gpuCapacity: 'auto-mode' },
    },
    // Auto Mode nodes bring their own device plugin.
    addons: { nvidiaDevicePlugin: { enabled: false } },
    extender: { mutualTls: false, certificateArn: CERTIFICATE, hostname: 'gpu-extender.internal.example.com', reservedConcurrency: 0, provisionedConcurrency: 2, environment: { EXTENDER_CACHE_TTL: '2s' } },
    scheduler: { replicas: 3, extender: { ignorable: true, preempt: false, httpTimeoutSeconds: 3, weight: 10 } },
    labeler: { scheduleMinutes: 10, environment: { LABEL_KARPENTER_COMPAT: 'true' } },
    reconciler: { environment: { POD_NAMESPACES: 'serving,batch' } },
    alarms: { createSnsTopic: true, email: 'oncall@example.com', extenderP99LatencyMs: 500 },
  });
}, 600_000);
// The cloud assembly holds ~60 MB of layer assets.
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

describe('existing cluster, attached by name', () => {
  it('creates no cluster, node group or VPC', () => {
    synth.template.resourceCountIs('AWS::EKS::Cluster', 0);
    synth.template.resourceCountIs('AWS::EKS::Nodegroup', 0);
    synth.template.resourceCountIs('AWS::EC2::VPC', 0);
  });

  it('installs no Karpenter (the cluster provides its own GPU capacity) and says what provides it', () => {
    expect(resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').map(([, chart]) => chart.Chart)).not.toContain('karpenter');
    synth.template.resourceCountIs('AWS::EKS::PodIdentityAssociation', 0);
    expect(kubernetesObjects(synth.json).filter((object) => object.kind === 'NodePool' || object.kind === 'EC2NodeClass')).toEqual([]);
    expect(synth.json.Outputs?.GpuCapacity?.Value).toBe('auto-mode');
  });

  it('leaves the second scheduler unpinned: the stack does not know the cluster’s node groups', () => {
    const deployment = findObject(kubernetesObjects(synth.json), 'Deployment', 'gpu-scheduler') as { spec: { template: { spec: Record<string, unknown> } } };
    expect(deployment.spec.template.spec).not.toHaveProperty('nodeSelector');
  });

  it('gives the deploy-time kubectl provider an access entry, and applies every manifest after it', () => {
    const entries = resourcesOfType(synth.json, 'AWS::EKS::AccessEntry').filter(([, p]) => JSON.stringify(p.AccessPolicies ?? []).includes('AmazonEKSClusterAdminPolicy'));
    expect(entries).toHaveLength(1);
    const [[entryId, entry] = ['', {}]] = entries;
    expect(entry.ClusterName).toBe('prod-gpu');
    expect(JSON.stringify(entry.PrincipalArn)).toContain('KubectlProvider');
    const manifests = Object.entries(synth.json.Resources).filter(([, r]) => r.Type === 'Custom::AWSCDK-EKS-KubernetesResource');
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    for (const [id, manifest] of manifests) expect([manifest.DependsOn ?? []].flat(), id).toContain(entryId);
  });

  it('runs the kubectl provider in the given private subnets', () => {
    const kubectl = resourcesOfType(synth.json, 'AWS::Lambda::Function').find(([id]) => id.includes('KubectlProviderHandler'));
    expect((kubectl?.[1].VpcConfig as { SubnetIds: string[] }).SubnetIds).toEqual(SUBNETS);
  });

  it('opens the existing cluster security group to the Lambdas on 443, and the ALB to the cluster security group', () => {
    const intoCluster = resourcesOfType(synth.json, 'AWS::EC2::SecurityGroupIngress').filter(([, p]) => p.GroupId === CLUSTER_SG);
    expect(intoCluster).toHaveLength(3);
    for (const [, rule] of intoCluster) expect(rule).toMatchObject({ FromPort: 443, ToPort: 443, IpProtocol: 'tcp' });
    synth.template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { SourceSecurityGroupId: CLUSTER_SG, FromPort: 443, ToPort: 443 });
  });

  it('places the Lambdas in the given subnets with the configured extra environment', () => {
    const functions = resourcesOfType(synth.json, 'AWS::Lambda::Function').filter(([id]) => /^(Extender|Labeler|Reconciler)Function/.test(id));
    expect(functions).toHaveLength(3);
    for (const [, fn] of functions) expect(fn.VpcConfig).toMatchObject({ SubnetIds: SUBNETS });
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CLUSTER_NAME: 'prod-gpu', EXTENDER_CACHE_TTL: '2s' }) },
    });
    // An attached cluster is known by name only: the extender looks its endpoint up with DescribeCluster.
    for (const [id, fn] of functions) expect((fn.Environment as { Variables: Record<string, unknown> }).Variables.CLUSTER_ENDPOINT, id).toBeUndefined();
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CLUSTER_NAME: 'prod-gpu', LABEL_KARPENTER_COMPAT: 'true' }) },
    });
  });
});

describe('switches and settings', () => {
  it('leaves out the device plugin and the Pod Identity agent when switched off', () => {
    synth.template.resourceCountIs('Custom::AWSCDK-EKS-HelmChart', 0);
    synth.template.resourceCountIs('AWS::EKS::Addon', 1);
    synth.template.hasResourceProperties('AWS::EKS::Addon', { AddonName: 'amazon-cloudwatch-observability', ClusterName: 'prod-gpu' });
  });

  it('serves the extender over HTTPS with the certificate, and the scheduler verifies the configured host name', () => {
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [{ CertificateArn: CERTIFICATE }],
      SslPolicy: Match.stringLikeRegexp('^ELBSecurityPolicy-TLS13'),
    });
    const objects = kubernetesObjects(synth.json);
    const configMap = findObject(objects, 'ConfigMap', 'gpu-scheduler-config') as { data: Record<string, string> };
    const config = JSON.parse(configMap.data['scheduler-config.json'] ?? '') as { extenders: Record<string, unknown>[] };
    expect(config.extenders[0]).toMatchObject({
      urlPrefix: 'https://gpu-extender.internal.example.com:443',
      enableHTTPS: true,
      ignorable: true,
      httpTimeout: '3s',
      weight: 10,
    });
    expect(config.extenders[0]).not.toHaveProperty('preemptVerb');
    const deployment = findObject(objects, 'Deployment', 'gpu-scheduler') as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/kube-scheduler:v1.35.4');
  });

  it('reserves no extender concurrency when reservedConcurrency is 0 (to Lambda, 0 would throttle every call)', () => {
    const extenders = resourcesOfType(synth.json, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('ExtenderFunction'));
    expect(extenders).toHaveLength(1);
    expect(extenders[0]?.[1]).not.toHaveProperty('ReservedConcurrentExecutions');
  });

  it('keeps provisioned extender instances warm behind the ALB through a live alias', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Alias', { Name: 'live', ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 } });
    const aliasId = resourcesOfType(synth.json, 'AWS::Lambda::Alias')[0]?.[0];
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', { TargetType: 'lambda', Targets: [{ Id: { Ref: aliasId } }] });
  });

  it('grants the reconciler pods only in its POD_NAMESPACES (nodes stay cluster-wide)', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CLUSTER_NAME: 'prod-gpu', POD_NAMESPACES: 'serving,batch' }) },
    });
    const objects = kubernetesObjects(synth.json);
    const group = LAMBDA_KUBERNETES_ACCESS.reconciler.group;
    expect(findObject(objects, 'ClusterRole', group).rules).toEqual(LAMBDA_KUBERNETES_ACCESS.reconciler.rules);
    const scoped = objects.filter((o) => (o.kind === 'Role' || o.kind === 'RoleBinding') && (o.metadata as { name: string }).name === group);
    expect(scoped.map((o) => `${String(o.kind)} ${(o.metadata as { namespace: string }).namespace}`).sort()).toEqual([
      'Role batch',
      'Role serving',
      'RoleBinding batch',
      'RoleBinding serving',
    ]);
    for (const role of scoped.filter((o) => o.kind === 'Role')) expect(role.rules).toEqual(LAMBDA_KUBERNETES_ACCESS.reconciler.namespacedRules);
  });

  it('uses the configured labeler schedule and log retention', () => {
    synth.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(10 minutes)' });
    for (const [id, group] of resourcesOfType(synth.json, 'AWS::Logs::LogGroup')) expect(group.RetentionInDays, id).toBe(90);
  });

  it('sends every alarm to an encrypted SNS topic with the e-mail subscription', () => {
    synth.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    synth.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    synth.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    const topicId = resourcesOfType(synth.json, 'AWS::SNS::Topic')[0]?.[0];
    const alarms = resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const [, alarm] of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
    }
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'TargetResponseTime', Threshold: 0.5 });
  });
});

describe('checks', () => {
  it('references only emitted or AWS-published metrics', () => {
    const dashboard = dashboardReferences(synth.json);
    const alarms = alarmReferences(synth.json);
    expectOnlyEmittedMetrics([...dashboard.metrics, ...alarms.metrics]);
    expectOnlyKnownSearches([...dashboard.expressions, ...alarms.expressions], 'prod-gpu');
  });

  it('passes cdk-nag AwsSolutions', () => {
    const report = JSON.parse(readFileSync(join(synth.outdir, 'validation-report.json'), 'utf8')) as { pluginReports?: { violations?: unknown[] }[] };
    expect((report.pluginReports ?? []).flatMap((plugin) => plugin.violations ?? [])).toEqual([]);
  });

  it('passes cfn-lint with no errors', () => {
    const errors = runCfnLint(synth.templateFiles).filter((finding) => finding.Level === 'Error');
    expect(errors.map((e) => `${e.Rule.Id} ${e.Message}`)).toEqual([]);
    // cfn-lint takes 10-90 s of a shared 2-core machine: a run's length is not what this checks.
  }, 600_000);
});
