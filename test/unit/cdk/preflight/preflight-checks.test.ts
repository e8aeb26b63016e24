import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import type { ClusterFacts, NodeFacts, WorkloadFacts } from '../../../../cdk/preflight/cluster-facts';
import type { EksLookup } from '../../../../cdk/preflight/eks-facts';
import { measuredSize, preflightFindings, type Finding } from '../../../../cdk/preflight/preflight-checks';

const EXISTING = {
  mode: 'existing',
  existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['eu-west-1a', 'eu-west-1b'], privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'], clusterSecurityGroupId: 'sg-0123456789abcdef0', gpuCapacity: 'karpenter' },
};
/** What the example configuration sets for a Karpenter + GPU Operator + CloudWatch add-on cluster. */
const CONFIG = parseAppConfig(CONFIG_RAW());

const node = (name: string, labels: Record<string, string>, gpus = 0): NodeFacts => ({ name, labels, gpus, taints: [], conditionTypes: ['Ready'] });
const ds = (namespace: string, name: string, images: string[] = [], labels: Record<string, string> = {}): WorkloadFacts => ({ kind: 'DaemonSet', namespace, name, labels, images });
const GPU_POOL = {
  name: 'gpu',
  requirements: [{ key: 'karpenter.k8s.aws/instance-gpu-manufacturer', operator: 'In', values: ['nvidia'] }, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g6e', 'p5'] }],
  taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
  gpuLimit: '16',
};

/** A cluster the example configuration fits: 1.36, Karpenter with a GPU pool, the GPU Operator, the CloudWatch add-on. */
function cleanCluster(): ClusterFacts {
  return {
    version: { minor: '1.36', gitVersion: 'v1.36.3-eks-1a2b3c' },
    nodes: [node('ip-10-0-1-1', { 'eks.amazonaws.com/nodegroup': 'system' }), node('ip-10-0-2-2', { 'karpenter.sh/nodepool': 'gpu', 'karpenter.k8s.aws/instance-gpu-count': '8' }, 8)],
    namespaces: ['default', 'kube-system', 'gpu-operator', 'amazon-cloudwatch'],
    workloads: [ds('gpu-operator', 'nvidia-device-plugin-daemonset', ['nvcr.io/nvidia/k8s-device-plugin:v0.17.1']), ds('amazon-cloudwatch', 'cloudwatch-agent')],
    crds: ['nodepools.karpenter.sh', 'clusterpolicies.nvidia.com', 'amazoncloudwatchagents.cloudwatch.aws.amazon.com'],
    nodePools: [GPU_POOL],
    schedulerConfigs: [],
    schedulerLease: undefined,
    dra: { drivers: [], deviceClasses: [] },
    optedInPods: 0,
  };
}

const FOUND: EksLookup = { found: { name: 'prod-gpu', version: '1.36', authenticationMode: 'API_AND_CONFIG_MAP', vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'], clusterSecurityGroupId: 'sg-0123456789abcdef0' } };

const run = (cluster: ClusterFacts, config = CONFIG, eks: EksLookup | undefined = FOUND) => preflightFindings({ config, configFile: 'my.yaml', cluster, eks });
const blockers = (findings: readonly Finding[]) => findings.filter((f) => f.severity === 'blocker');
const about = (findings: readonly Finding[], topic: string) => findings.filter((f) => f.topic === topic);

describe('preflightFindings', () => {
  it('a cluster the config fits has no blocker and no warning, and says so for each check', () => {
    const findings = run(cleanCluster());
    expect(findings.filter((f) => f.severity === 'blocker' || f.severity === 'warning')).toEqual([]);
    expect(findings.map((f) => f.topic)).toEqual(
      expect.arrayContaining(['EKS access entries', 'Kubernetes version', 'GPU NodePools', 'device plugin', 'CloudWatch add-on', 'DRA driver', 'Kueue', 'node monitoring agent', 'scheduler name', 'scheduler placement', 'monthly cost']),
    );
  });

  it('the defaults on that cluster: a second device plugin and an add-on CloudFormation cannot adopt, each with the key that resolves it', () => {
    const defaults = parseAppConfig({ clusterName: 'prod-gpu', cluster: EXISTING });
    const found = blockers(run(cleanCluster(), defaults));
    expect(found.map((f) => [f.topic, f.resolve])).toEqual([
      ['device plugin', 'addons.nvidiaDevicePlugin.enabled: false'],
      ['CloudWatch add-on', 'addons.cloudWatchObservability.enabled: false'],
    ]);
    expect(found[0]?.message).toMatch(/the GPU Operator, DaemonSet gpu-operator\/nvidia-device-plugin-daemonset already advertise nvidia.com\/gpu/);
  });

  it('Kubernetes: a version the config does not name, an unsupported one, and what 1.35 lacks', () => {
    const on = (minor: string) => run({ ...cleanCluster(), version: { minor, gitVersion: `v${minor}.4-eks` } }, CONFIG, undefined);
    expect(blockers(on('1.35')).map((f) => f.resolve)).toEqual(['kubernetesVersion: "1.35"']);
    expect(about(on('1.35'), 'Kubernetes version').find((f) => f.severity === 'warning')?.message).toMatch(/1.35 has no MutatingAdmissionPolicy.*namespace opt-in/);
    expect(blockers(on('1.34'))[0]?.message).toMatch(/supports 1.35 and 1.36/);
  });

  it('EKS: CONFIG_MAP authentication blocks, an unreported mode warns, the wrong VPC or security group blocks, a missing cluster blocks', () => {
    const withEks = (patch: Partial<Extract<EksLookup, { found: unknown }>['found']>) => run(cleanCluster(), CONFIG, { found: { ...(FOUND as { found: Extract<EksLookup, { found: unknown }>['found'] }).found, ...patch } });
    expect(blockers(withEks({ authenticationMode: 'CONFIG_MAP' }))[0]?.resolve).toBe('aws eks update-cluster-config --name prod-gpu --access-config authenticationMode=API_AND_CONFIG_MAP');
    expect(about(withEks({ authenticationMode: undefined }), 'EKS access entries')[0]?.severity).toBe('warning');
    expect(blockers(withEks({ vpcId: 'vpc-0fedcba9876543210', clusterSecurityGroupId: 'sg-0fedcba9876543210' })).map((f) => f.resolve)).toEqual([
      'cluster.existing.vpcId: vpc-0fedcba9876543210',
      'cluster.existing.clusterSecurityGroupId: sg-0fedcba9876543210',
    ]);
    expect(blockers(run(cleanCluster(), CONFIG, { notFound: 'prod-gpu' }))[0]?.resolve).toBe('clusterName (or --region)');
    expect(about(run(cleanCluster(), CONFIG, { failed: 'no region' }), 'EKS cluster')[0]).toMatchObject({ severity: 'warning', message: expect.stringMatching(/EKS not asked \(no region\)/) });
  });

  it('NodePools: a GPU pool whose taint the opt-in does not tolerate, and one that may launch AMD GPUs', () => {
    const h100 = { name: 'h100', requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['p5'] }], taints: [{ key: 'example.com/pool', value: 'h100', effect: 'NoSchedule' }] };
    const findings = about(run({ ...cleanCluster(), nodePools: [GPU_POOL, h100, { name: 'general', requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], taints: [] }] }), 'GPU NodePools');
    expect(findings.filter((f) => f.severity === 'warning').map((f) => f.resolve)).toEqual([
      'admission.gpuTaints: add {key: example.com/pool, effect: NO_SCHEDULE} (or leave it out on purpose, e.g. a canary pool)',
      'add the requirement karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia] (docs/existing-cluster-karpenter.md#nodepool-requirements)',
    ]);
    // Configured, the same taint is tolerated.
    const tolerant = parseAppConfig({ ...CONFIG_RAW(), admission: { gpuTaints: [{ key: 'nvidia.com/gpu' }, { key: 'example.com/pool' }] } });
    expect(about(run({ ...cleanCluster(), nodePools: [h100] }, tolerant), 'GPU NodePools').filter((f) => f.resolve?.startsWith('admission.gpuTaints'))).toEqual([]);
    expect(blockers(run({ ...cleanCluster(), nodePools: 'absent' }))[0]?.resolve).toBe('cluster.existing.gpuCapacity: node-groups, or install Karpenter');
  });

  it('another scheduler of the same name: a KubeSchedulerConfiguration profile, a Deployment or a held lease', () => {
    const clash = run({
      ...cleanCluster(),
      workloads: [...(cleanCluster().workloads as WorkloadFacts[]), { kind: 'Deployment', namespace: 'kube-system', name: 'gpu-scheduler', labels: {}, images: ['registry.k8s.io/kube-scheduler:v1.36.3'] }],
      schedulerConfigs: [{ namespace: 'ml', name: 'volcano-config', profiles: ['default-scheduler', 'gpu-scheduler'] }],
      schedulerLease: { holder: 'gpu-scheduler-abc_1' },
    });
    const found = blockers(clash);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(/Deployment kube-system\/gpu-scheduler; a KubeSchedulerConfiguration with profile gpu-scheduler \(ConfigMap ml\/volcano-config\); lease kube-system\/gpu-scheduler \(held by gpu-scheduler-abc_1\)/);
    expect(found[0]?.resolve).toBe('scheduler.name (and scheduler.leaseName) to a name of its own');
    // Our own, once deployed, is no clash.
    const ours = run({
      ...cleanCluster(),
      workloads: [...(cleanCluster().workloads as WorkloadFacts[]), { kind: 'Deployment', namespace: 'kube-system', name: 'gpu-scheduler', labels: { 'app.kubernetes.io/part-of': 'gpu-scheduling' }, images: [] }],
      schedulerConfigs: [{ namespace: 'kube-system', name: 'gpu-scheduler-config', profiles: ['gpu-scheduler'] }],
      schedulerLease: { holder: 'x' },
    });
    expect(blockers(ours)).toEqual([]);
  });

  it('where the scheduler runs: no node matches its selector, or no selector on a cluster with Karpenter-managed nodes', () => {
    const nowhere = parseAppConfig({ ...CONFIG_RAW(), scheduler: { nodeSelector: { 'eks.amazonaws.com/nodegroup': 'platform' } } });
    expect(blockers(run(cleanCluster(), nowhere)).map((f) => f.resolve)).toEqual(['scheduler.nodeSelector']);
    const unpinned = parseAppConfig({ ...CONFIG_RAW(), scheduler: {} });
    const nodes = [...(cleanCluster().nodes as NodeFacts[]), node('ip-10-0-3-3', { 'karpenter.sh/nodepool': 'general' })];
    expect(about(run({ ...cleanCluster(), nodes }, unpinned), 'scheduler placement')[0]).toMatchObject({ severity: 'warning', resolve: 'scheduler.nodeSelector: {eks.amazonaws.com/nodegroup: system}' });
  });

  it('Kueue running and enabled in the config too is a second Kueue; the DRA driver and the node monitoring agent are reported', () => {
    const withKueue = { ...cleanCluster(), crds: [...(cleanCluster().crds as string[]), 'clusterqueues.kueue.x-k8s.io'], workloads: [...(cleanCluster().workloads as WorkloadFacts[]), { kind: 'Deployment' as const, namespace: 'kueue-system', name: 'kueue-controller-manager', labels: {}, images: ['registry.k8s.io/kueue/kueue:v0.16.2'] }] };
    expect(blockers(run(withKueue, parseAppConfig({ ...CONFIG_RAW(), addons: { ...CONFIG_RAW().addons, kueue: { enabled: true } } })))[0]?.message).toMatch(/Kueue runs already \(v0.16.2\)/);
    expect(about(run(withKueue), 'Kueue')[0]?.message).toMatch(/installed \(v0.16.2\)/);
    const dra = run({ ...cleanCluster(), dra: { drivers: ['gpu.nvidia.com'], deviceClasses: ['gpu.nvidia.com'] }, nodes: [node('g', { 'eks.amazonaws.com/nodegroup': 'system' })].map((n) => ({ ...n, conditionTypes: ['Ready', 'AcceleratedHardwareReady'] })) });
    expect(about(dra, 'DRA driver')[0]?.message).toMatch(/NVIDIA's DRA driver publishes GPUs/);
    expect(about(dra, 'node monitoring agent')[0]?.message).toMatch(/present/);
  });

  it('prices the size found: GPU nodes and opted-in pods', () => {
    expect(measuredSize({ ...cleanCluster(), optedInPods: 12 })).toEqual({ gpuNodes: 1, optedInPods: 12, gpuPodsScheduledPerDay: 10_000 });
    expect(about(run(cleanCluster()), 'monthly cost')[0]?.resolve).toBe('npm run cost -- --config my.yaml --gpu-nodes 1 --pods 0 shows each line');
  });

  it('a read the identity may not make is one warning, not a failed run', () => {
    const findings = run({ ...cleanCluster(), workloads: { unreadable: 'forbidden to this identity' } });
    expect(about(findings, 'add-ons')[0]).toMatchObject({ severity: 'warning', message: 'could not read DaemonSets and Deployments (forbidden to this identity); not checked' });
  });
});

function CONFIG_RAW() {
  return {
    clusterName: 'prod-gpu',
    cluster: EXISTING,
    addons: { nvidiaDevicePlugin: { enabled: false }, cloudWatchObservability: { enabled: false } },
    scheduler: { nodeSelector: { 'eks.amazonaws.com/nodegroup': 'system' } },
  };
}
