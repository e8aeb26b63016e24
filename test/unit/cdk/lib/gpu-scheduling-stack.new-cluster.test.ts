import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOpenDimension, METRIC, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { localLambdaContext } from '../../../../local/aws/lambda-context';
import { APP_CONFIG_DEFAULTS } from '../../../../cdk/app-config/app-config-defaults';
import { dashboardLayoutSvg } from '../../../../cdk/tools/dashboard-layout';
import { DASHBOARD_LAYOUT_SVG, dashboardBodies } from '../../../../cdk/tools/render-dashboard-layout';
import { LAMBDA_KUBERNETES_ACCESS, type LambdaKubernetesAccess } from '../../../../cdk/lib/access/lambda-rbac-rules';
import { CERTIFICATES_GROUP, certificatesWriteLimitManifests } from '../../../../cdk/lib/access/extender-tls-manifests';
import { lambdaWriteLimitManifests, writeLimitPolicyName } from '../../../../cdk/lib/access/write-limit-policy';
import { GPU_INTENT_POLICY_NAMES, gpuIntentManifests, gpuIntentOptionsOf } from '../../../../cdk/lib/admission/gpu-intent-policies';
import { schedulerMetricsConfigFromEnv } from '../../../../lambdas/reconciler/scheduler-metrics-config';
import { gpuSchedulerProfile } from '../../../../cdk/lib/scheduler/second-scheduler-manifests';
import { KARPENTER_VERSION } from '../../../../cdk/lib/karpenter/karpenter-release';
import { COST_ASSUMPTIONS } from '../../../../cdk/cost/stack-cost';
import { runCfnLint } from '../support/cfn-lint';
import { expectOnlyEmittedMetrics, expectOnlyKnownSearches } from '../support/metric-coverage';
import { alarmReferences, dashboardReferences } from '../support/referenced-metrics';
import type { Synthesized } from '../support/synthesize';
import { findObject, kubernetesObjects, renderCfnString, resourcesOfType, synthesize } from '../support/synthesize';

// One synth (with esbuild bundling and cdk-nag) for the whole file: the
// default configuration, exactly what `npx cdk synth` with no arguments builds.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize(undefined, { bundle: true });
}, 600_000);
// The cloud assembly holds ~60 MB of layer assets.
afterAll(() => {
  if (synth) rmSync(synth.outdir, { recursive: true, force: true });
});

const lambdaNames = ['Extender', 'Labeler', 'Reconciler'] as const;

// The CDK adds a prune label to every object it applies; everything else is the harness's object.
const withoutPruneLabel = (object: Record<string, unknown>): Record<string, unknown> => {
  const metadata = object.metadata as { labels: Record<string, string> };
  const labels = Object.fromEntries(Object.entries(metadata.labels).filter(([key]) => !key.startsWith('aws.cdk.eks/prune-')));
  return { ...object, metadata: { ...metadata, labels } };
};

function ourFunctions(): [string, Record<string, unknown>][] {
  return resourcesOfType(synth.json, 'AWS::Lambda::Function').filter(([id]) => lambdaNames.some((name) => id.startsWith(`${name}Function`)));
}

function logicalIdOf(prefix: string, type: string): string {
  const match = resourcesOfType(synth.json, type).find(([id]) => id.startsWith(prefix));
  if (!match) throw new Error(`no ${type} starting with ${prefix}`);
  return match[0];
}

describe('new cluster', () => {
  it('creates an EKS cluster of the configured version with a private endpoint and every control-plane log type', () => {
    synth.template.hasResourceProperties('AWS::EKS::Cluster', {
      Name: 'gpu-scheduling',
      Version: '1.36',
      ResourcesVpcConfig: Match.objectLike({ EndpointPrivateAccess: true, EndpointPublicAccess: false }),
      AccessConfig: Match.objectLike({ AuthenticationMode: 'API' }),
      Logging: { ClusterLogging: { EnabledTypes: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'].map((Type) => ({ Type })) } },
    });
  });

  it('creates the system node group only: Karpenter provides the GPU nodes, so there is no GPU group nor its instance-type check', () => {
    synth.template.resourceCountIs('AWS::EKS::Nodegroup', 1);
    synth.template.resourceCountIs('Custom::GpuInstanceTypes', 0);
    synth.template.hasResourceProperties('AWS::EKS::Nodegroup', {
      AmiType: 'AL2023_x86_64_STANDARD',
      InstanceTypes: ['m7i.large'],
      ScalingConfig: { MinSize: 2, MaxSize: 3, DesiredSize: 2 },
      Labels: { 'gpu-scheduling/node-group': 'system' },
    });
  });

  it('installs the NVIDIA device plugin, pinned and limited to GPU nodes', () => {
    const [, chart = {}] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').find(([, properties]) => properties.Chart === 'nvidia-device-plugin') ?? [];
    expect(chart).toMatchObject({ Chart: 'nvidia-device-plugin', Version: '0.17.1', Namespace: 'kube-system', Repository: 'https://nvidia.github.io/k8s-device-plugin' });
    const values = JSON.parse(renderCfnString(chart.Values)) as { affinity: unknown; tolerations: unknown };
    expect(JSON.stringify(values.affinity)).toContain('gpu-scheduling/accelerator');
    expect(values.tolerations).toEqual([{ operator: 'Exists' }]);
  });

  it('installs amazon-cloudwatch-observability with a Pod Identity role, and the Pod Identity agent', () => {
    synth.template.hasResourceProperties('AWS::EKS::Addon', {
      AddonName: 'amazon-cloudwatch-observability',
      PodIdentityAssociations: [{ ServiceAccount: 'cloudwatch-agent', RoleArn: Match.anyValue() }],
    });
    synth.template.hasResourceProperties('AWS::EKS::Addon', { AddonName: 'eks-pod-identity-agent' });
  });
});

describe('Karpenter', () => {
  function chart(): Record<string, unknown> {
    const [, found] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').find(([, properties]) => properties.Chart === 'karpenter') ?? [];
    if (!found) throw new Error('no karpenter chart');
    return found;
  }

  it('installs the pinned chart from public ECR into kube-system, pinned to the system nodes, after the Pod Identity association and the agent', () => {
    expect(chart()).toMatchObject({ Chart: 'karpenter', Version: KARPENTER_VERSION, Repository: 'oci://public.ecr.aws/karpenter/karpenter', Release: 'karpenter', Namespace: 'kube-system', Wait: true });
    const values = JSON.parse(renderCfnString(chart().Values)) as Record<string, unknown>;
    expect(values).toMatchObject({
      settings: { clusterName: 'gpu-scheduling', interruptionQueue: expect.stringMatching(/^<ref:KarpenterInterruptionQueue\w+\.QueueName>$/) as unknown },
      serviceAccount: { name: 'karpenter' },
      nodeSelector: { 'kubernetes.io/os': 'linux', 'gpu-scheduling/node-group': 'system' },
    });
    const [chartId] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').find(([, properties]) => properties.Chart === 'karpenter') ?? [];
    const dependsOn = [synth.json.Resources[chartId ?? '']?.DependsOn ?? []].flat();
    expect(dependsOn).toEqual(expect.arrayContaining([logicalIdOf('KarpenterControllerPodIdentity', 'AWS::EKS::PodIdentityAssociation'), logicalIdOf('AddonsPodIdentityAgent', 'AWS::EKS::Addon')]));
  });

  it('gives the controller its role through EKS Pod Identity on the karpenter service account', () => {
    synth.template.hasResourceProperties('AWS::EKS::PodIdentityAssociation', {
      ClusterName: 'gpu-scheduling',
      Namespace: 'kube-system',
      ServiceAccount: 'karpenter',
      RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^KarpenterControllerRole'), 'Arn'] },
    });
    const role = synth.json.Resources[logicalIdOf('KarpenterControllerRole', 'AWS::IAM::Role')]?.Properties as { AssumeRolePolicyDocument: { Statement: { Principal: unknown; Action: unknown }[] } };
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([{ Effect: 'Allow', Principal: { Service: 'pods.eks.amazonaws.com' }, Action: ['sts:AssumeRole', 'sts:TagSession'] }]);
  });

  it("scopes the controller's writes by the cluster's tags and names, as Karpenter's reference policy does", () => {
    const [, policy] = resourcesOfType(synth.json, 'AWS::IAM::Policy').find(([id]) => id.startsWith('KarpenterControllerPolicy')) ?? [];
    const statements = (policy?.PolicyDocument as { Statement: { Sid: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> }[] }).Statement;
    const bySid = new Map(statements.map((statement) => [statement.Sid, statement]));
    const clusterTag = 'kubernetes.io/cluster/gpu-scheduling';
    expect(bySid.get('AllowScopedEC2InstanceActionsWithTags')?.Condition).toEqual({
      StringEquals: { [`aws:RequestTag/${clusterTag}`]: 'owned' },
      StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' },
    });
    expect(bySid.get('AllowScopedDeletion')?.Condition).toEqual({
      StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    });
    expect([bySid.get('AllowScopedDeletion')?.Action].flat().sort()).toEqual(['ec2:DeleteLaunchTemplate', 'ec2:TerminateInstances']);
    expect(JSON.stringify(bySid.get('AllowRegionalReadActions')?.Condition)).toContain('aws:RequestedRegion');
    // Only the node role may be passed, and only to EC2.
    expect(renderCfnString(bySid.get('AllowPassingInstanceRole')?.Resource)).toMatch(/^<ref:KarpenterNodeRole\w+\.Arn>$/);
    expect(renderCfnString(bySid.get('AllowInterruptionQueueActions')?.Resource)).toMatch(/^<ref:KarpenterInterruptionQueue\w+\.Arn>$/);
    expect(renderCfnString(bySid.get('AllowAPIServerEndpointDiscovery')?.Resource)).toMatch(/:cluster\/gpu-scheduling$/);
    // No action outside EC2, SSM, pricing, SQS, the instance-profile and PassRole IAM actions, and DescribeCluster.
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions.filter((action) => !/^(ec2|ssm|pricing|sqs):|^iam:(PassRole|\w*InstanceProfile)$|^eks:DescribeCluster$/.test(action))).toEqual([]);
    expect(actions).not.toContain('ec2:*');
  });

  it('lets its GPU nodes join through an EC2_LINUX access entry for the node role', () => {
    synth.template.hasResourceProperties('AWS::EKS::AccessEntry', {
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^KarpenterNodeRole'), 'Arn'] },
      Type: 'EC2_LINUX',
    });
  });

  it('fills an encrypted interruption queue from the Spot interruption, rebalance, state-change and AWS Health rules', () => {
    synth.template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 300, SqsManagedSseEnabled: true });
    const queueId = logicalIdOf('KarpenterInterruptionQueue', 'AWS::SQS::Queue');
    const rules = resourcesOfType(synth.json, 'AWS::Events::Rule').filter(([id]) => id.startsWith('KarpenterInterruption'));
    const patterns = rules.map(([, rule]) => rule.EventPattern as { source: string[]; 'detail-type': string[] });
    expect(patterns.map((pattern) => `${pattern.source.join()}:${pattern['detail-type'].join()}`).sort()).toEqual([
      'aws.ec2:EC2 Instance Rebalance Recommendation',
      'aws.ec2:EC2 Instance State-change Notification',
      'aws.ec2:EC2 Spot Instance Interruption Warning',
      'aws.health:AWS Health Event',
    ]);
    for (const [, rule] of rules) expect(JSON.stringify(rule.Targets)).toContain(queueId);
  });

  it('tags the private subnets for the EC2NodeClass, and only those', () => {
    const subnets = resourcesOfType(synth.json, 'AWS::EC2::Subnet');
    const tagged = subnets.filter(([, subnet]) => (subnet.Tags as { Key: string; Value: string }[]).some((tag) => tag.Key === 'karpenter.sh/discovery' && tag.Value === 'gpu-scheduling'));
    expect(tagged.map(([id]) => id).sort()).toEqual(subnets.map(([id]) => id).filter((id) => id.includes('private')).sort());
    expect(tagged).toHaveLength(2);
  });

  it('applies the EC2NodeClass and the default NodePool after the chart (its CRDs)', () => {
    const objects = kubernetesObjects(synth.json);
    const nodeClass = findObject(objects, 'EC2NodeClass', 'gpu') as { spec: { role: unknown; securityGroupSelectorTerms: { id: unknown }[] } };
    expect(renderCfnString(nodeClass.spec.role)).toMatch(/^<ref:KarpenterNodeRole\w+>$/);
    expect(renderCfnString(nodeClass.spec.securityGroupSelectorTerms[0]?.id)).toMatch(/^<ref:Cluster\w+\.ClusterSecurityGroupId>$/);
    expect(findObject(objects, 'NodePool', 'gpu')).toMatchObject({ spec: { limits: { 'nvidia.com/gpu': '16' } } });
    const [manifestId] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-KubernetesResource').find(([, properties]) => renderCfnString(properties.Manifest).includes('EC2NodeClass')) ?? [];
    const [chartId] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').find(([, properties]) => properties.Chart === 'karpenter') ?? [];
    expect([synth.json.Resources[manifestId ?? '']?.DependsOn ?? []].flat()).toContain(chartId);
  });
});

describe('second scheduler', () => {
  it('runs kube-scheduler matching the cluster version, two replicas, with a PDB', () => {
    const objects = kubernetesObjects(synth.json);
    const deployment = findObject(objects, 'Deployment', 'gpu-scheduler') as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/kube-scheduler:v1.36.3');
    expect(findObject(objects, 'PodDisruptionBudget', 'gpu-scheduler')).toMatchObject({ spec: { minAvailable: 1 } });
  });

  it('runs on the system node group only, never on a GPU node Karpenter launched', () => {
    const deployment = findObject(kubernetesObjects(synth.json), 'Deployment', 'gpu-scheduler') as { spec: { template: { spec: { nodeSelector?: unknown } } } };
    expect(deployment.spec.template.spec.nodeSelector).toEqual({ 'gpu-scheduling/node-group': 'system' });
  });

  it('lets the reconciler read its /metrics through the pod proxy: the path always allowed, pods list and pods/proxy get in kube-system only, narrowed by a policy', () => {
    const objects = kubernetesObjects(synth.json);
    const deployment = findObject(objects, 'Deployment', 'gpu-scheduler') as {
      spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { command: string[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]?.command).toContain('--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics');
    const reader = `${LAMBDA_KUBERNETES_ACCESS.reconciler.group}-scheduler-metrics`;
    const role = objects.find((o) => o.kind === 'Role' && (o.metadata as { name: string }).name === reader);
    expect(role).toMatchObject({ metadata: { namespace: 'kube-system' } });
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
    ]);
    const named = (kind: string) => objects.filter((o) => o.kind === kind && (o.metadata as { name: string }).name === reader);
    expect(named('RoleBinding')).toHaveLength(1);
    // The proxy narrowed further, by the API server, to the Deployment's pods on 10259 and /metrics.
    expect(named('ValidatingAdmissionPolicy')[0]).toMatchObject({ spec: { failurePolicy: 'Fail' } });
    expect(JSON.stringify(named('ValidatingAdmissionPolicy')[0])).toContain('^https:gpu-scheduler-[a-z0-9]+-[a-z0-9]+:10259$');
    expect(named('ValidatingAdmissionPolicyBinding')).toHaveLength(1);
    // The reconciler finds the replicas by the Deployment's own label, in the scheduler's namespace.
    const reconciler = ourFunctions().find(([id]) => id.startsWith('ReconcilerFunction'))?.[1];
    const variables = (reconciler?.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({ SCHEDULER_NAMESPACE: 'kube-system', GPU_SCHEDULER_NAME: 'gpu-scheduler' });
    const config = schedulerMetricsConfigFromEnv(variables as Record<string, string>);
    const [key, value] = (config?.podSelector ?? '').split('=');
    expect(deployment.spec.template.metadata.labels[key ?? '']).toBe(value);
  });

  it('points the extender at the internal ALB over mutual TLS with the configured protocol settings', () => {
    const configMap = findObject(kubernetesObjects(synth.json), 'ConfigMap', 'gpu-scheduler-config') as { data: Record<string, string> };
    const config = JSON.parse(configMap.data['scheduler-config.json'] ?? '') as { profiles: unknown; extenders: Record<string, unknown>[] };
    expect(config.profiles).toEqual([JSON.parse(JSON.stringify(gpuSchedulerProfile('gpu-scheduler')))]);
    const albId = logicalIdOf('ExtenderEndpointLoadBalancer', 'AWS::ElasticLoadBalancingV2::LoadBalancer');
    expect(config.extenders[0]).toEqual({
      urlPrefix: `https://<ref:${albId}.DNSName>:443`,
      filterVerb: 'filter',
      prioritizeVerb: 'prioritize',
      preemptVerb: 'preempt',
      weight: 2,
      enableHTTPS: true,
      nodeCacheCapable: true,
      httpTimeout: '5s',
      ignorable: false,
      tlsConfig: {
        certFile: '/etc/kubernetes/gpu-scheduler-extender-tls/tls.crt',
        keyFile: '/etc/kubernetes/gpu-scheduler-extender-tls/tls.key',
        caFile: '/etc/kubernetes/gpu-scheduler-extender-tls/ca.crt',
      },
    });
    // No managedResources: every pod of the profile reaches the extender, also one that claims its GPUs through a ResourceClaim.
    expect(config.extenders[0]).not.toHaveProperty('managedResources');
  });
});

describe('extender endpoint', () => {
  it('is an internal ALB with an HTTPS listener in mutual-TLS verify mode forwarding to the extender Lambda', () => {
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Scheme: 'internal', Type: 'application' });
    const trustStore = logicalIdOf('ExtenderEndpointTrustStore', 'AWS::ElasticLoadBalancingV2::TrustStore');
    const certificates = logicalIdOf('ExtenderEndpointCertificatesGeneration', 'Custom::ExtenderMutualTls');
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [{ CertificateArn: { 'Fn::GetAtt': [certificates, 'CertificateArn'] } }],
      MutualAuthentication: { Mode: 'verify', TrustStoreArn: { 'Fn::GetAtt': [trustStore, 'TrustStoreArn'] } },
    });
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TrustStore', { CaCertificatesBundleS3Key: 'extender-mtls/client-ca-bundle.pem' });
    synth.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', { TargetType: 'lambda' });
    // The trust store reads the bundle the first generation wrote.
    expect(synth.json.Resources[trustStore]?.DependsOn).toContain(certificates);
  });

  it('keeps every private key out of the template: the scheduler\'s Secret is created empty, the rotation Lambda fills it', () => {
    const secret = findObject(kubernetesObjects(synth.json), 'Secret', 'gpu-scheduler-extender-tls') as Record<string, unknown>;
    expect(secret).not.toHaveProperty('data');
    expect(secret).not.toHaveProperty('stringData');
    expect(JSON.stringify(synth.json)).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
    const role = findObject(kubernetesObjects(synth.json), 'Role', 'gpu-scheduling-certificates') as { rules: unknown[] };
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['gpu-scheduler-extender-tls'], verbs: ['get', 'patch'] },
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['gpu-scheduler'], verbs: ['get', 'patch'] },
    ]);
    const deployment = findObject(kubernetesObjects(synth.json), 'Deployment', 'gpu-scheduler') as {
      spec: { template: { spec: { volumes: { name: string; secret?: unknown }[] } } };
    };
    expect(deployment.spec.template.spec.volumes).toContainEqual({ name: 'extender-tls', secret: { secretName: 'gpu-scheduler-extender-tls', defaultMode: 0o440 } });
  });

  it('checks daily whether to rotate, naming the trust store to point at the new bundle', () => {
    const trustStore = logicalIdOf('ExtenderEndpointTrustStore', 'AWS::ElasticLoadBalancingV2::TrustStore');
    const rule = resourcesOfType(synth.json, 'AWS::Events::Rule').find(([id]) => id.startsWith('ExtenderEndpointCertificatesRotationSchedule'));
    expect(rule?.[1]).toMatchObject({ ScheduleExpression: 'rate(1 day)' });
    expect(JSON.stringify(rule?.[1])).toContain(trustStore);
  });

  it('sends failed scheduled rotations to a failure queue, and alarms on them, on the function\'s errors and on the scheduler\'s failed attempts', () => {
    const queue = logicalIdOf('ExtenderEndpointCertificatesFailedRuns', 'AWS::SQS::Queue');
    const fn = logicalIdOf('ExtenderEndpointCertificatesFunction', 'AWS::Lambda::Function');
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
    });
    const rule = resourcesOfType(synth.json, 'AWS::Events::Rule').find(([id]) => id.startsWith('ExtenderEndpointCertificatesRotationSchedule'))?.[1] as { Targets: { DeadLetterConfig?: unknown }[] };
    expect(rule.Targets[0]?.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [queue, 'Arn'] } });
    const alarms = resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm);
    expect(alarms.filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(alarm.Dimensions).includes(queue))).toHaveLength(1);
    expect(alarms.filter((alarm) => alarm.MetricName === 'Errors' && JSON.stringify(alarm.Dimensions).includes(fn))).toHaveLength(1);
    const failedAttempts = alarms.find((alarm) => String(alarm.AlarmDescription).includes('fail with an error'));
    expect(JSON.stringify(failedAttempts)).toContain(`"MetricName":"${METRIC.gpuSchedulerAttempts.name}"`);
    expect(JSON.stringify(failedAttempts)).toContain('"Name":"Result","Value":"error"');
  });

  it('lets the rotation touch only certificates it tagged and only the stack\'s trust store; the ALB alone, from its target group, invokes the extender', () => {
    const statements = resourcesOfType(synth.json, 'AWS::IAM::Policy')
      .filter(([id]) => id.startsWith('ExtenderEndpointCertificates'))
      .flatMap(([, p]) => (p.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> }[] }).Statement);
    const acm = statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('acm:')));
    expect(acm.length).toBeGreaterThan(0);
    for (const statement of acm) {
      const tags = { ...statement.Condition?.StringEquals };
      expect(Object.keys(tags).sort(), JSON.stringify(statement.Action)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^aws:(Request|Resource)Tag\/gpu-scheduling:purpose$/), expect.stringMatching(/^aws:(Request|Resource)Tag\/gpu-scheduling:stack$/)]),
      );
    }
    const trustStore = logicalIdOf('ExtenderEndpointTrustStore', 'AWS::ElasticLoadBalancingV2::TrustStore');
    const modify = statements.find((statement) => statement.Action === 'elasticloadbalancing:ModifyTrustStore');
    expect(JSON.stringify(modify?.Resource)).toContain(trustStore);
    expect(JSON.stringify(modify?.Resource)).not.toContain('truststore/*');
    const invoke = resourcesOfType(synth.json, 'AWS::Lambda::Permission').filter(([, permission]) => permission.Principal === 'elasticloadbalancing.amazonaws.com');
    expect(invoke).toHaveLength(1);
    const group = logicalIdOf('ExtenderEndpointLoadBalancerListenerExtenderGroup', 'AWS::ElasticLoadBalancingV2::TargetGroup');
    const name = (synth.json.Resources[group]?.Properties as { Name: string }).Name;
    expect(renderCfnString(invoke[0]?.[1].SourceArn)).toMatch(new RegExp(`:targetgroup/${name}/\\*$`));
  });

  it('accepts traffic only from the cluster security group, on the listener port', () => {
    const albSg = logicalIdOf('ExtenderEndpointSecurityGroup', 'AWS::EC2::SecurityGroup');
    const sg = synth.json.Resources[albSg]?.Properties as { SecurityGroupIngress?: unknown[] };
    expect(sg.SecurityGroupIngress ?? []).toEqual([]);
    const ingress = resourcesOfType(synth.json, 'AWS::EC2::SecurityGroupIngress').filter(
      ([, p]) => JSON.stringify(p.GroupId).includes(albSg),
    );
    expect(ingress).toHaveLength(1);
    expect(ingress[0]?.[1]).toMatchObject({
      FromPort: 443,
      ToPort: 443,
      IpProtocol: 'tcp',
      SourceSecurityGroupId: { 'Fn::GetAtt': [expect.stringMatching(/^Cluster/), 'ClusterSecurityGroupId'] },
    });
  });

  it('lets each Lambda out only on 443 (the API endpoint and AWS APIs)', () => {
    for (const name of lambdaNames) {
      const sg = synth.json.Resources[logicalIdOf(`${name}SecurityGroup`, 'AWS::EC2::SecurityGroup')]?.Properties as { SecurityGroupEgress: { FromPort: number; ToPort: number }[] };
      for (const rule of sg.SecurityGroupEgress) expect([rule.FromPort, rule.ToPort]).toEqual([443, 443]);
      const egress = resourcesOfType(synth.json, 'AWS::EC2::SecurityGroupEgress').filter(([id]) => id.startsWith(`${name}SecurityGroup`));
      expect(egress.map(([, p]) => [p.FromPort, p.ToPort, (p.DestinationSecurityGroupId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][1]])).toEqual([
        [443, 443, 'ClusterSecurityGroupId'],
      ]);
    }
  });
});

describe('Lambdas', () => {
  it('are nodejs22.x on arm64 in private subnets with CLUSTER_NAME and an explicit log group', () => {
    const functions = ourFunctions();
    expect(functions).toHaveLength(3);
    for (const [, fn] of functions) {
      expect(fn).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: { Variables: expect.objectContaining({ CLUSTER_NAME: 'gpu-scheduling' }) as unknown },
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/LogGroup/) as unknown } },
        VpcConfig: { SubnetIds: expect.arrayContaining([expect.objectContaining({ Ref: expect.stringMatching(/privateSubnet/) as unknown })]) as unknown },
      });
    }
  });

  it('bounds the extender (only) to its default reserved concurrency, and keeps no instance warm by default', () => {
    for (const [id, fn] of ourFunctions()) {
      expect(fn.ReservedConcurrentExecutions, id).toBe(id.startsWith('ExtenderFunction') ? 4 : undefined);
    }
    expect(resourcesOfType(synth.json, 'AWS::Lambda::Alias')).toEqual([]);
  });

  it('gives the extender one vCPU of memory and a larger young generation without source maps, the others source maps', () => {
    for (const [id, fn] of ourFunctions()) {
      const variables = (fn.Environment as { Variables: Record<string, unknown> }).Variables;
      if (id.startsWith('ExtenderFunction')) {
        expect(fn.MemorySize).toBe(1769);
        expect(variables.NODE_OPTIONS).toBe('--max-semi-space-size=64');
      } else {
        expect(variables.NODE_OPTIONS, id).toBe('--enable-source-maps');
      }
    }
  });

  it("hands the extender (only) the new cluster's endpoint and CA, so it needs no DescribeCluster", () => {
    const clusterId = logicalIdOf('Cluster', 'AWS::EKS::Cluster');
    for (const [id, fn] of ourFunctions()) {
      const variables = (fn.Environment as { Variables: Record<string, unknown> }).Variables;
      if (id.startsWith('ExtenderFunction')) {
        expect(variables.CLUSTER_ENDPOINT).toEqual({ 'Fn::GetAtt': [clusterId, 'Endpoint'] });
        expect(variables.CLUSTER_CA_DATA).toEqual({ 'Fn::GetAtt': [clusterId, 'CertificateAuthorityData'] });
      } else {
        expect(variables.CLUSTER_ENDPOINT, id).toBeUndefined();
      }
    }
  });

  it('ships the extender as one bundle, as the labeler and the reconciler: index.mjs alone, which answers /healthz', async () => {
    const [, extender] = ourFunctions().find(([id]) => id.startsWith('ExtenderFunction')) ?? [];
    const key = (extender?.Code as { S3Key?: unknown } | undefined)?.S3Key;
    expect(typeof key).toBe('string');
    const dir = join(synth.outdir, `asset.${String(key).replace(/\.zip$/, '')}`);
    expect(readdirSync(dir).filter((name) => name.endsWith('.mjs'))).toEqual(['index.mjs']);
    const { handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as { handler: (event: unknown, context: Context) => Promise<{ statusCode: number; body: string }> };
    const context = localLambdaContext({ functionName: SERVICE.extender, timeoutMs: 10_000 });
    const reply = await handler({ httpMethod: 'GET', path: '/healthz', headers: {}, body: null, isBase64Encoded: false }, context);
    expect(reply).toMatchObject({ statusCode: 200, body: '{"status":"ok"}' });
  });

  it('gives every function in the stack (ours and the library ones) a log group with retention', () => {
    for (const [id, fn] of resourcesOfType(synth.json, 'AWS::Lambda::Function')) {
      expect(fn.LoggingConfig, id).toMatchObject({ LogGroup: expect.anything() as unknown });
    }
    for (const [id, group] of resourcesOfType(synth.json, 'AWS::Logs::LogGroup')) {
      expect(group.RetentionInDays, id).toBe(30);
    }
  });

  it('labeler and reconciler run on EventBridge rules with retry limits and a dead-letter queue', () => {
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'], detail: { state: ['running'] } },
      Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue(), RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 2 } })],
    });
    synth.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 } })],
    });
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  it('dead-letter queues are encrypted and refuse non-TLS requests', () => {
    // The labeler's and reconciler's dead letters, the certificate rotation's failed runs; Karpenter's interruption queue is encrypted the same way.
    const queues = resourcesOfType(synth.json, 'AWS::SQS::Queue');
    expect(queues.filter(([id]) => !id.startsWith('Karpenter'))).toHaveLength(3);
    for (const [, queue] of queues) expect(queue.SqsManagedSseEnabled).toBe(true);
    synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('least privilege', () => {
  function policyStatements(rolePrefix: string): { Action: string | string[]; Resource: unknown }[] {
    return resourcesOfType(synth.json, 'AWS::IAM::Policy')
      .filter(([id]) => id.startsWith(rolePrefix))
      .flatMap(([, p]) => (p.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement);
  }

  it('grants eks:DescribeCluster on the one cluster and only the unscoped reads each function needs', () => {
    const actions = (name: string): string[] => policyStatements(`${name}RoleDefaultPolicy`).flatMap((s) => [s.Action].flat()).sort();
    const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
    expect(actions('Extender')).toEqual(['eks:DescribeCluster', ...xray].sort());
    expect(actions('Labeler')).toEqual(['ec2:DescribeCapacityReservations', 'ec2:DescribeInstanceTypes', 'ec2:DescribeInstances', 'eks:DescribeCluster', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', ...xray].sort());
    expect(actions('Reconciler')).toEqual(['cloudwatch:GetMetricData', 'eks:DescribeCluster', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', ...xray].sort());
    const clusterId = logicalIdOf('Cluster', 'AWS::EKS::Cluster');
    for (const name of lambdaNames) {
      const describe = policyStatements(`${name}RoleDefaultPolicy`).find((s) => s.Action === 'eks:DescribeCluster');
      expect(describe?.Resource).toEqual({ 'Fn::GetAtt': [clusterId, 'Arn'] });
    }
  });

  it('maps each Lambda role to its own Kubernetes group with no EKS access policy', () => {
    for (const name of lambdaNames) {
      const key = name.toLowerCase() as keyof typeof LAMBDA_KUBERNETES_ACCESS;
      const roleId = logicalIdOf(`${name}Role`, 'AWS::IAM::Role');
      synth.template.hasResourceProperties('AWS::EKS::AccessEntry', {
        ClusterName: 'gpu-scheduling',
        PrincipalArn: { 'Fn::GetAtt': [roleId, 'Arn'] },
        KubernetesGroups: [LAMBDA_KUBERNETES_ACCESS[key].group],
        AccessPolicies: Match.absent(),
      });
    }
    // They name the cluster by a literal, so they must wait for it explicitly (and for nothing else of it).
    const clusterId = logicalIdOf('Cluster', 'AWS::EKS::Cluster');
    for (const [id, resource] of Object.entries(synth.json.Resources).filter(([id]) => /^(Extender|Labeler|Reconciler)ClusterAccessAccessEntry/.test(id))) {
      expect(resource.DependsOn, id).toEqual([clusterId]);
    }
    // The only cluster-admin entry is the deploy-time kubectl provider's.
    const admins = resourcesOfType(synth.json, 'AWS::EKS::AccessEntry').filter(([, p]) => JSON.stringify(p.AccessPolicies ?? []).includes('ClusterAdmin'));
    expect(admins.map(([, p]) => JSON.stringify(p.PrincipalArn))).toEqual([expect.stringContaining('KubectlProvider')]);
  });

  it('binds each group to a narrow ClusterRole: no wildcards, no secrets, no deletes', () => {
    const objects = kubernetesObjects(synth.json);
    for (const access of Object.values(LAMBDA_KUBERNETES_ACCESS) as LambdaKubernetesAccess[]) {
      const role = findObject(objects, 'ClusterRole', access.group) as { rules: { resources: string[]; verbs: string[] }[] };
      // No POD_NAMESPACES configured: the reconciler's pod rules are cluster-wide too.
      expect(role.rules).toEqual([...access.rules, ...(access.namespacedRules ?? [])]);
      for (const rule of role.rules) {
        expect(rule.resources).not.toContain('*');
        expect(rule.resources).not.toContain('secrets');
        expect(rule.verbs).not.toContain('*');
        expect(rule.verbs).not.toContain('delete');
      }
      expect(findObject(objects, 'ClusterRoleBinding', access.group)).toMatchObject({
        roleRef: { kind: 'ClusterRole', name: access.group },
        subjects: [{ kind: 'Group', name: access.group }],
      });
    }
    const reconcilerGroup = LAMBDA_KUBERNETES_ACCESS.reconciler.group;
    expect(objects.filter((o) => (o.kind === 'Role' || o.kind === 'RoleBinding') && (o.metadata as { name: string }).name === reconcilerGroup)).toEqual([]);
  });

  it('deploys the write-limit admission policies and their bindings as the local harness installs them', () => {
    const objects = kubernetesObjects(synth.json);
    // The scheduler-metrics reader's proxy policy is checked with the second scheduler.
    const reader = `${LAMBDA_KUBERNETES_ACCESS.reconciler.group}-scheduler-metrics`;
    const gpuIntent: readonly string[] = Object.values(GPU_INTENT_POLICY_NAMES);
    // The rotation identity's, with its Role (extender-tls-manifests.ts; test/e2e/extender-tls-rotation-access.test.ts applies the same).
    const certificates = writeLimitPolicyName(CERTIFICATES_GROUP);
    const policies = objects.filter((o) => String(o.kind).startsWith('ValidatingAdmissionPolicy'));
    const deployed = policies.filter((o) => ![reader, certificates, ...gpuIntent].includes((o.metadata as { name: string }).name)).map(withoutPruneLabel);
    expect(deployed).toEqual(lambdaWriteLimitManifests());
    expect(policies.filter((o) => (o.metadata as { name: string }).name === certificates).map(withoutPruneLabel)).toEqual(
      certificatesWriteLimitManifests({ namespace: 'kube-system', schedulerName: 'gpu-scheduler', secretName: 'gpu-scheduler-extender-tls' }),
    );
  });

  it('deploys the GPU-intent admission policies and their bindings as the local harness installs them, warning by default', () => {
    const deployed = kubernetesObjects(synth.json)
      .filter((o) => /^(Mutating|Validating)AdmissionPolicy/.test(String(o.kind)))
      .filter((o) => (Object.values(GPU_INTENT_POLICY_NAMES) as string[]).includes((o.metadata as { name: string }).name))
      .map(withoutPruneLabel);
    expect(deployed).toEqual(gpuIntentManifests(gpuIntentOptionsOf(APP_CONFIG_DEFAULTS)));
    expect(deployed.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')?.spec).toMatchObject({ validationActions: ['Warn'] });
  });
});

describe('observability', () => {
  it('its alarms read as many metrics as the cost model bills (cdk/cost/stack-cost.ts)', () => {
    const metricsRead = resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm').reduce((sum, [, alarm]) => {
      const metrics = alarm.Metrics as { MetricStat?: unknown }[] | undefined;
      return sum + (metrics === undefined ? 1 : metrics.filter((m) => m.MetricStat !== undefined).length);
    }, 0);
    expect(metricsRead).toBe(COST_ASSUMPTIONS.alarmMetrics);
  });

  it('alarms on extender 5xx, handler errors, p99 latency, each DLQ and each Lambda’s errors', () => {
    const alarms = resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm');
    // …and, with mutual TLS, the certificate rotation's errors and failed runs, the listener certificate's DaysToExpiry; the scheduler's failed attempts; reserved GPUs idle while pods wait for capacity; GPU health's (unhealthy GPUs, a node failing too long).
    expect(alarms).toHaveLength(19);
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/CertificateManager',
      MetricName: 'DaysToExpiry',
      Threshold: APP_CONFIG_DEFAULTS.alarms.certificateDaysToExpiry,
      ComparisonOperator: 'LessThanThreshold',
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'TargetResponseTime',
      ExtendedStatistic: 'p99',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    for (const [, alarm] of alarms) expect(alarm.AlarmActions).toBeUndefined();
  });

  it('alarms on the outcome: GPU pods pending too long, stranded GPUs, the second scheduler idle with pods pending or without a ready replica', () => {
    const byDescription = (text: string) => resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => String(alarm.AlarmDescription).includes(text));
    const [[, pending] = []] = byDescription('has waited more than');
    expect(pending).toMatchObject({ Threshold: APP_CONFIG_DEFAULTS.alarms.gpuPodPendingMinutes * 60, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(pending?.Metrics)).toContain(`"MetricName":"${METRIC.oldestPendingGpuPodAge.name}"`);
    const [[, noReplica] = []] = byDescription('No gpu-scheduler replica');
    expect(noReplica).toMatchObject({ Threshold: 1, ComparisonOperator: 'LessThanThreshold' });
    expect(JSON.stringify(noReplica?.Metrics)).toContain(`"MetricName":"${METRIC.gpuSchedulerReadyReplicas.name}"`);
    const [[, stranded] = []] = byDescription('of no use to the typical GPU pod shapes');
    expect(stranded?.Threshold).toBe(APP_CONFIG_DEFAULTS.alarms.strandedGpuPercent);
    expect(JSON.stringify(stranded?.Metrics)).toContain('100 * stranded / allocatable');
    const [[, notScheduling] = []] = byDescription('made no scheduling attempt');
    expect(JSON.stringify(notScheduling?.Metrics)).toContain('IF(pending > 0 AND (FILL(attemptsscheduled, 0) + FILL(attemptsunschedulable, 0) + FILL(attemptserror, 0)) == 0, 1, 0)');
    const [[, reservedIdle] = []] = byDescription('Reserved GPUs have sat idle');
    const minutes = APP_CONFIG_DEFAULTS.alarms.reservedGpusIdleMinutes;
    expect(JSON.stringify(reservedIdle?.Metrics)).toContain(`"MetricName":"${METRIC.reservedGpusIdleWhileWaiting.name}"`);
    expect(JSON.stringify(reservedIdle?.Metrics)).toContain('"Stat":"Minimum"');
    expect(reservedIdle).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: minutes,
      DatapointsToAlarm: minutes,
    });
  });

  it('starts the dashboard with the outcome: single values and the alarm status, then the outcome graphs, then the plumbing', () => {
    const [body] = dashboardBodies(synth.json);
    const widgets = body?.widgets ?? [];
    const topRow = widgets.filter((w) => w.y === widgets[1]?.y);
    expect(topRow.map((w) => w.type === 'alarm' ? 'alarm' : w.properties?.view)).toEqual(['singleValue', 'singleValue', 'singleValue', 'alarm']);
    const alarmWidget = topRow.find((w) => w.type === 'alarm') as { properties?: { alarms?: unknown[] } } | undefined;
    expect(alarmWidget?.properties?.alarms).toHaveLength(resourcesOfType(synth.json, 'AWS::CloudWatch::Alarm').length);
    const firstOf = (title: string) => widgets.findIndex((w) => w.properties?.title === title);
    expect(firstOf('GPUs allocated per model')).toBeGreaterThan(firstOf('GPUs: allocated %, idle, stranded'));
    expect(firstOf('Extender requests per verb')).toBeGreaterThan(firstOf('gpu-scheduler ready replicas'));
  });

  it('follows the top row with capacity: nodes and their cost, pods waiting for capacity or a fit, launched and terminated, idle GPU-hours', () => {
    const [body] = dashboardBodies(synth.json);
    const widgets = body?.widgets ?? [];
    const titled = (title: string) => widgets.find((w) => w.properties?.title === title) as { y: number; properties: { metrics: unknown[][]; setPeriodToTimeRange?: boolean; view?: string } } | undefined;
    const topY = widgets[1]?.y ?? 0;
    const now = titled('GPU nodes now: count, $ per hour');
    expect(now?.y).toBeGreaterThan(topY);
    expect(now?.y).toBeLessThan(widgets.find((w) => w.properties?.title === 'GPUs allocatable per model')?.y ?? 0);
    const names = (title: string) => JSON.stringify(titled(title)?.properties.metrics);
    expect(names('GPU nodes now: count, $ per hour')).toContain('GpuNodesHourlyCostUsd');
    expect(names('Pending GPU pods: waiting for capacity, for a fit')).toMatch(/GpuPodsWaitingForCapacity.*GpuPodsWaitingForFit/);
    // Totals over the dashboard's time range: a gauge × its period in hours.
    const range = titled('Over the time range: launched, idle GPU-hours, $');
    expect(range?.properties.setPeriodToTimeRange).toBe(true);
    expect(names('Over the time range: launched, idle GPU-hours, $')).toContain('idle * PERIOD(idle) / 3600');
    expect(names('Over the time range: launched, idle GPU-hours, $')).toContain('cost * PERIOD(cost) / 3600');
    expect(names('GPU nodes launched and terminated (per minute)')).toContain('IF(FILL(launchedn, 0) - DIFF(nodes) > 0, FILL(launchedn, 0) - DIFF(nodes), 0)');
  });

  it('matches the dashboard picture in docs/deploy.md (re-draw it with npx tsx cdk/tools/render-dashboard-layout.ts)', () => {
    const [body] = dashboardBodies(synth.json);
    expect(body && dashboardLayoutSvg(body)).toBe(readFileSync(DASHBOARD_LAYOUT_SVG, 'utf8'));
  });

  it('references only metrics the Lambdas emit (namespace, name, dimensions) or AWS publishes', () => {
    const dashboard = dashboardReferences(synth.json);
    const alarms = alarmReferences(synth.json);
    expectOnlyEmittedMetrics([...dashboard.metrics, ...alarms.metrics]);
    expectOnlyKnownSearches([...dashboard.expressions, ...alarms.expressions], 'gpu-scheduling');
  });

  it('shows every catalog metric, for every dimension value, on the dashboard', () => {
    const shown = dashboardReferences(synth.json).metrics;
    const searches = dashboardReferences(synth.json).expressions.map((e) => e.expression);
    for (const metric of Object.values(METRIC)) {
      if (Object.values(metric.dimensions).some(isOpenDimension)) {
        // Values no list holds (the top namespaces): a SEARCH shows whatever is emitted.
        expect(searches.some((expression) => expression.includes(`MetricName="${metric.name}"`)), metric.name).toBe(true);
        continue;
      }
      const series = shown.filter((reference) => reference.metricName === metric.name);
      expect(series.length, metric.name).toBeGreaterThan(0);
      for (const [dimension, values] of Object.entries(metric.dimensions)) {
        expect(new Set(series.map((reference) => reference.dimensions[dimension])), `${metric.name} ${dimension}`).toEqual(new Set(values));
      }
    }
  });

  it('plots GPU utilization per node from Container Insights', () => {
    expect(dashboardReferences(synth.json).expressions.map((e) => e.expression)).toContainEqual(expect.stringContaining('node_gpu_utilization'));
  });

  it('outputs the ALB URL, the dashboard URL and the scheduler name', () => {
    const outputs = synth.json.Outputs ?? {};
    expect(renderCfnString(outputs.ExtenderUrl?.Value)).toMatch(/^https:\/\/<ref:ExtenderEndpointLoadBalancer\w+\.DNSName>:443$/);
    expect(renderCfnString(outputs.DashboardUrl?.Value)).toContain('#dashboards:name=gpu-scheduling-gpu-scheduling');
    expect(outputs.SchedulerName?.Value).toBe('gpu-scheduler');
    expect(outputs.GpuCapacity?.Value).toBe('karpenter');
  });
});

describe('late node registration', () => {
  it('gives the labeler the time to wait for a node inside the invocation, and raises no alarm on a node that did not register', () => {
    const labeler = ourFunctions().find(([id]) => id.startsWith('LabelerFunction'))?.[1];
    // Wait (3m30s by default) plus the labelling after it; a timeout would be a Lambda error and a retry.
    expect(labeler?.Timeout).toBe(240);
    const alarmed = alarmReferences(synth.json).metrics.map((reference) => reference.metricName);
    expect(alarmed).not.toContain(METRIC.nodesNotRegistered.name);
    expect(alarmed).not.toContain(METRIC.startupTaintsRemoved.name);
    // What does alarm on the labeler: its Lambda errors and its dead letters, which a late node no longer causes.
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ourFunctions().find(([id]) => id.startsWith('LabelerFunction'))?.[0] } }],
      Threshold: 1,
    });
  });
});

describe('checks', () => {
  it('passes cdk-nag AwsSolutions (synth succeeded; the validation report lists no violation)', () => {
    const report = JSON.parse(readFileSync(join(synth.outdir, 'validation-report.json'), 'utf8')) as { pluginReports?: { violations?: unknown[] }[] };
    const violations = (report.pluginReports ?? []).flatMap((plugin) => plugin.violations ?? []);
    expect(violations).toEqual([]);
  });

  it('passes cfn-lint with no errors', () => {
    const errors = runCfnLint(synth.templateFiles).filter((finding) => finding.Level === 'Error');
    expect(errors.map((e) => `${e.Rule.Id} ${e.Message}`)).toEqual([]);
    // cfn-lint takes 10-90 s of a shared 2-core machine: a run's length is not what this checks.
  }, 600_000);
});
