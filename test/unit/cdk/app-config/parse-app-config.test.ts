import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../../../cdk/app-config/load-app-config';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';

describe('parseAppConfig defaults', () => {
  const config = parseAppConfig(undefined);

  it('builds a new private cluster whose GPU nodes come from one tainted Karpenter NodePool, beside a system node group', () => {
    expect(config.cluster.mode).toBe('new');
    if (config.cluster.mode !== 'new') throw new Error('unreachable');
    expect(config.cluster.endpointAccess).toBe('private');
    expect(config.cluster.gpuCapacity).toBe('karpenter');
    expect(config.cluster.gpuNodeGroups).toEqual([]);
    expect(config.cluster.karpenter.nodePools).toHaveLength(1);
    expect(config.cluster.karpenter.nodePools[0]?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }]);
    expect(config.cluster.systemNodeGroup.name).toBe('system');
  });

  it('with gpuCapacity "node-groups", builds one tainted GPU node group instead', () => {
    const groups = parseAppConfig({ cluster: { gpuCapacity: 'node-groups' } });
    if (groups.cluster.mode !== 'new') throw new Error('unreachable');
    expect(groups.cluster.gpuNodeGroups).toHaveLength(1);
    expect(groups.cluster.gpuNodeGroups[0]?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }]);
  });

  it('matches the kube-scheduler version to the cluster version', () => {
    expect(config.scheduler.kubeSchedulerVersion.startsWith(`${config.kubernetesVersion}.`)).toBe(true);
  });

  it('uses the schedules and listener the docs promise', () => {
    expect(config.labeler.scheduleMinutes).toBe(5);
    expect(config.reconciler.scheduleMinutes).toBe(1);
    expect(config.extender.mutualTls).toBe(true);
    expect(config.extender.listenerPort).toBe(443);
    expect(config.scheduler.name).toBe('gpu-scheduler');
    expect(config.scheduler.replicas).toBe(2);
    expect(config.scheduler.leaseName).toBe('gpu-scheduler');
  });
});

function errorOf(raw: unknown): string {
  try {
    parseAppConfig(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('parseAppConfig rejects bad values, naming the key and what is allowed', () => {
  it.each([
    [{ kubernetesVersion: '1.20' }, 'kubernetesVersion', '"1.35", "1.36"'],
    // Dropped when EKS ended its standard support: a config that still names it is told what is supported.
    [{ kubernetesVersion: '1.34' }, 'kubernetesVersion', 'must be one of "1.35", "1.36", got "1.34"'],
    [{ clusterName: 'bad name!' }, 'clusterName', 'EKS cluster name'],
    [{ logRetentionDays: 2 }, 'logRetentionDays', 'must be one of 1, 3, 5'],
    [{ colour: 'blue' }, 'colour', 'unknown key'],
    [{ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ instanceTypes: ['g5'] }] } }, 'cluster.gpuNodeGroups[0].instanceTypes[0]', 'an EC2 instance type with NVIDIA GPUs such as g5.xlarge (checked against DescribeInstanceTypes when deploying)'],
    [{ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ minSize: 3, maxSize: 2 }] } }, 'cluster.gpuNodeGroups[0].maxSize', 'at least minSize (3)'],
    [{ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ desiredSize: 9 }] } }, 'cluster.gpuNodeGroups[0].desiredSize', 'from minSize (0) to maxSize (4)'],
    [{ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ taints: [{ key: 'a', effect: 'NoSchedule' }] }] } }, 'cluster.gpuNodeGroups[0].taints[0].effect', '"NO_SCHEDULE"'],
    [{ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ name: 'a' }, { name: 'a' }] } }, 'cluster.gpuNodeGroups[1].name', 'unique'],
    [{ cluster: { gpuCapacity: 'cluster-autoscaler' } }, 'cluster.gpuCapacity', '"karpenter", "node-groups"'],
    [{ cluster: { gpuCapacity: 'node-groups', karpenter: {} } }, 'cluster.karpenter', 'only allowed when cluster.gpuCapacity is "karpenter"'],
    [{ cluster: { karpenter: { nodePools: [] } } }, 'cluster.karpenter.nodePools', 'at least 1'],
    [{ cluster: { karpenter: { nodePools: [{}, {}] } } }, 'cluster.karpenter.nodePools[1].name', 'unique'],
    [{ cluster: { karpenter: { nodePools: [{ name: 'GPU' }] } } }, 'cluster.karpenter.nodePools[0].name', 'DNS-1123 label'],
    [{ cluster: { karpenter: { nodePools: [{ instanceFamilies: ['g6e.xlarge'] }] } } }, 'cluster.karpenter.nodePools[0].instanceFamilies[0]', 'instance family such as g6e'],
    [{ cluster: { karpenter: { nodePools: [{ instanceFamilies: ['g6e'], instanceTypes: ['p5.48xlarge'] }] } } }, 'cluster.karpenter.nodePools[0].instanceTypes', 'cannot be combined with instanceFamilies'],
    [{ cluster: { karpenter: { nodePools: [{ instanceFamilies: [] }] } } }, 'cluster.karpenter.nodePools[0].instanceFamilies', 'at least one instance family'],
    [{ cluster: { karpenter: { nodePools: [{ capacityTypes: ['spot'] }] } } }, 'cluster.karpenter.nodePools[0].capacityTypes[0]', 'must be one of "ON_DEMAND", "SPOT", got "spot"'],
    [{ cluster: { karpenter: { nodePools: [{ maxGpus: 0 }] } } }, 'cluster.karpenter.nodePools[0].maxGpus', 'integer from 1'],
    [{ cluster: { karpenter: { nodePools: [{ consolidationPolicy: 'Always' }] } } }, 'cluster.karpenter.nodePools[0].consolidationPolicy', '"WhenEmpty", "WhenEmptyOrUnderutilized"'],
    [{ cluster: { karpenter: { nodePools: [{ consolidateAfter: '5 minutes' }] } } }, 'cluster.karpenter.nodePools[0].consolidateAfter', 'a duration'],
    [{ cluster: { karpenter: { nodePools: [{ expireAfter: '30d' }] } } }, 'cluster.karpenter.nodePools[0].expireAfter', '"Never"'],
    [{ cluster: { karpenter: { nodePools: [{ disruptionBudgets: [{}] }] } } }, 'cluster.karpenter.nodePools[0].disruptionBudgets[0].nodes', 'is required'],
    [{ cluster: { karpenter: { nodePools: [{ disruptionBudgets: [{ nodes: '150%' }] }] } } }, 'cluster.karpenter.nodePools[0].disruptionBudgets[0].nodes', 'a share such as "10%"'],
    [{ cluster: { karpenter: { nodePools: [{ disruptionBudgets: [{ nodes: '0', reasons: ['Expired'] }] }] } } }, 'cluster.karpenter.nodePools[0].disruptionBudgets[0].reasons[0]', '"Underutilized", "Empty", "Drifted"'],
    [{ cluster: { karpenter: { nodePools: [{ disruptionBudgets: [{ nodes: '0', schedule: '0 9 * * 1-5' }] }] } } }, 'cluster.karpenter.nodePools[0].disruptionBudgets[0].duration', 'schedule and duration go together'],
    [{ cluster: { karpenter: { nodePools: [{ labels: { 'bad key!': 'x' } }] } } }, 'cluster.karpenter.nodePools[0].labels.bad key!', 'Kubernetes label key'],
    [{ cluster: { karpenter: { nodePools: [{ taints: [{ key: 'a', effect: 'NoSchedule' }] }] } } }, 'cluster.karpenter.nodePools[0].taints[0].effect', '"NO_SCHEDULE"'],
    [{ cluster: { karpenter: { amiAlias: 'al2@latest' } } }, 'cluster.karpenter.amiAlias', 'al2023@latest or al2023@vYYYYMMDD'],
    [{ cluster: { karpenter: { diskSizeGiB: 10 } } }, 'cluster.karpenter.diskSizeGiB', 'integer from 20'],
    [{ cluster: { karpenter: { nodepools: [] } } }, 'cluster.karpenter.nodepools', 'did you mean nodePools?'],
    [{ cluster: { mode: 'existing', existing: {}, gpuCapacity: 'karpenter' } }, 'cluster.gpuCapacity', 'only allowed when cluster.mode is "new"'],
    [{ cluster: { mode: 'existing', existing: { gpuCapacity: 'fargate' } } }, 'cluster.existing.gpuCapacity', '"karpenter", "auto-mode", "node-groups"'],
    [
      { cluster: { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', clusterSecurityGroupId: 'sg-0123456789abcdef0', gpuCapacity: 'auto-mode' } } },
      'addons.nvidiaDevicePlugin.enabled',
      'must be false when cluster.existing.gpuCapacity is "auto-mode"',
    ],
    [{ cluster: { endpointAccess: 'public-and-private' } }, 'cluster.publicAccessCidrs', 'must list the CIDRs'],
    [{ cluster: { availabilityZones: ['us-east-1a'] } }, 'cluster.availabilityZones', 'at least 2 zones'],
    [{ cluster: { natGateways: 3 } }, 'cluster.natGateways', 'integer from 1 to 2'],
    [{ cluster: { awsApiAccess: 'privatelink' } }, 'cluster.awsApiAccess', '"nat", "vpc-endpoints"'],
    [{ cluster: { adminPrincipalArns: ['admin'] } }, 'cluster.adminPrincipalArns[0]', 'IAM role or user ARN'],
    [{ cluster: { mode: 'existing' } }, 'cluster.existing', 'is required'],
    [{ cluster: { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a', 'us-east-1b'], privateSubnetIds: ['subnet-0123456789abcdef0'] } } }, 'cluster.existing.privateSubnetIds', 'at least 2'],
    [{ cluster: { mode: 'existing', existing: {}, vpcCidr: '10.0.0.0/16' } }, 'cluster.vpcCidr', 'only allowed when cluster.mode is "new"'],
    [{ scheduler: { kubeSchedulerVersion: '1.33.4' } }, 'scheduler.kubeSchedulerVersion', 'must match kubernetesVersion 1.36'],
    [{ scheduler: { leaseName: 'kube-scheduler' } }, 'scheduler.leaseName', 'belongs to the default scheduler'],
    [{ scheduler: { extender: { weight: 0 } } }, 'scheduler.extender.weight', 'integer from 1 to 100'],
    [{ scheduler: { extender: { ignorable: 'yes' } } }, 'scheduler.extender.ignorable', 'true or false'],
    [{ extender: { mutualTls: false, certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123' } }, 'extender.hostname', 'is required'],
    [
      { extender: { certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123', hostname: 'x.example.com' } },
      'extender.certificateArn',
      'is only used with extender.mutualTls: false',
    ],
    [{ extender: { mutualTls: 'no' } }, 'extender.mutualTls', 'must be true or false'],
    [{ extender: { reservedConcurrency: 2, provisionedConcurrency: 3 } }, 'extender.provisionedConcurrency', 'must not exceed extender.reservedConcurrency (2)'],
    [{ extender: { provisionedConcurrency: 5 } }, 'extender.provisionedConcurrency', 'must not exceed extender.reservedConcurrency (4)'],
    [{ extender: { reservedConcurrency: -1 } }, 'extender.reservedConcurrency', 'integer from 0 to 1000'],
    [{ extender: { environment: { CLUSTER_NAME: 'x' } } }, 'extender.environment.CLUSTER_NAME', 'set by the stack'],
    [{ reconciler: { timeoutSeconds: 60 } }, 'reconciler.timeoutSeconds', 'cannot overlap'],
    [{ labeler: { retryAttempts: 3 } }, 'labeler.retryAttempts', 'from 0 to 2'],
    [{ alarms: { email: 'ops@example.com' } }, 'alarms.email', 'createSnsTopic'],
    [{ admission: { gpuAnnotations: 'block' } }, 'admission.gpuAnnotations', 'must be one of "warn", "deny", got "block"'],
    [{ admission: { gpuAnotations: 'deny' } }, 'admission.gpuAnotations', 'gpuAnnotations'],
    [{ alarms: { extenderP99LatencyMs: 5000 } }, 'alarms.extenderP99LatencyMs', 'httpTimeoutSeconds'],
    [{ alarms: { gpuPodPendingMinutes: 0 } }, 'alarms.gpuPodPendingMinutes', 'integer from 1 to 1440'],
    [{ alarms: { strandedGpuPercent: 101 } }, 'alarms.strandedGpuPercent', 'integer from 1 to 100'],
    // Rules that once ended in a CDK error at synth (or at deploy) rather than a config error.
    [{ cluster: { vpcCidr: '300.0.0.0/16' } }, 'cluster.vpcCidr', 'an IPv4 CIDR from /16 to /28'],
    [{ cluster: { vpcCidr: '10.0.0.0/17', availabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'] } }, 'cluster.vpcCidr', '4 zones need a /16 or larger'],
    [{ cluster: { availabilityZones: ['us-east-1a', 'us-east-1a'] } }, 'cluster.availabilityZones[1]', '"us-east-1a" is listed twice'],
    [{ cluster: { adminPrincipalArns: ['arn:aws:iam::123456789012:role/a', 'arn:aws:iam::123456789012:role/a'] } }, 'cluster.adminPrincipalArns[1]', 'listed twice; each principal gets one access entry'],
    [{ cluster: { endpointAccess: 'public-and-private', publicAccessCidrs: ['999.1.1.1/8'] } }, 'cluster.publicAccessCidrs[0]', 'an IPv4 CIDR'],
    [{ cluster: { mode: 'existing', existing: { availabilityZones: ['eu-west-1a', 'eu-west-1a'] } } }, 'cluster.existing.availabilityZones[1]', 'listed twice'],
    [{ cluster: { mode: 'cloud' } }, 'cluster.mode', 'must be one of "new", "existing", got "cloud"'],
    [{ scheduler: { name: 'default-scheduler' } }, 'scheduler.name', 'the default scheduler\'s profile'],
  ])('%j → %s', (raw, key, allowed) => {
    const message = errorOf(raw);
    expect(message).toContain(`${key}:`);
    expect(message).toContain(allowed);
  });
});

describe('admission', () => {
  it('warns on unknown or malformed GPU annotations by default and refuses them when asked', () => {
    expect(parseAppConfig(undefined).admission.gpuAnnotations).toBe('warn');
    expect(parseAppConfig({ admission: { gpuAnnotations: 'deny' } }).admission.gpuAnnotations).toBe('deny');
  });

  it('tolerates the GPU taints configured: the stack\'s NodePools by default, the EKS convention on an existing cluster, else the list given', () => {
    const pools = { gpuCapacity: 'karpenter', karpenter: { nodePools: [{ name: 'gpu', taints: [{ key: 'example.com/accelerator', value: 'h100', effect: 'NO_SCHEDULE' }] }] } };
    expect(parseAppConfig({ cluster: pools }).admission.gpuTaints).toEqual([{ key: 'example.com/accelerator', value: 'h100', effect: 'NO_SCHEDULE' }]);
    const existing = { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a', 'us-east-1b'], privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'], clusterSecurityGroupId: 'sg-0123456789abcdef0' } };
    expect(parseAppConfig({ cluster: existing }).admission.gpuTaints).toEqual([expect.objectContaining({ key: 'nvidia.com/gpu', effect: 'NO_SCHEDULE' })]);
    const listed = [{ key: 'nvidia.com/gpu', effect: 'NO_SCHEDULE' }, { key: 'team.example.com/gpu', effect: 'NO_EXECUTE' }];
    expect(parseAppConfig({ cluster: existing, admission: { gpuTaints: listed } }).admission.gpuTaints).toEqual(listed.map((taint) => expect.objectContaining(taint)));
  });
});

describe('GPU node group instance types', () => {
  it('accepts any well-formed type at synth, new families included; EC2 decides at deploy time (GpuInstanceTypeCheck)', () => {
    const instanceTypes = ['p6-b300.48xlarge', 'g6f.large', 'g7e.2xlarge', 'p6e-gb200.36xlarge', 'p9-future.96xlarge', 'm5.large'];
    const config = parseAppConfig({ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ instanceTypes }] } });
    if (config.cluster.mode !== 'new') throw new Error('unreachable');
    expect(config.cluster.gpuNodeGroups[0]?.instanceTypes).toEqual(instanceTypes);
  });
});

describe('GPU node group taints', () => {
  it('taint a configured GPU group by default, and can be switched off with an empty list', () => {
    const config = parseAppConfig({ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ name: 'tainted' }, { name: 'open', taints: [] }] } });
    if (config.cluster.mode !== 'new') throw new Error('unreachable');
    expect(config.cluster.gpuNodeGroups.map((group) => group.taints.length)).toEqual([1, 0]);
    expect(config.cluster.systemNodeGroup.taints).toEqual([]);
  });

  it('add the start-up taint only when asked, on a new cluster', () => {
    const off = parseAppConfig({});
    const on = parseAppConfig({ cluster: { gpuNodeStartupTaint: true } });
    if (off.cluster.mode !== 'new' || on.cluster.mode !== 'new') throw new Error('unreachable');
    expect(off.cluster.gpuNodeStartupTaint).toBe(false);
    expect(on.cluster.gpuNodeStartupTaint).toBe(true);
    expect(() => parseAppConfig({ cluster: { gpuNodeStartupTaint: 'yes' } })).toThrow(/cluster\.gpuNodeStartupTaint/);
    const existing = { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', clusterSecurityGroupId: 'sg-0123456789abcdef0' } };
    expect(() => parseAppConfig({ cluster: { ...existing, gpuNodeStartupTaint: true } })).toThrow(/cluster\.gpuNodeStartupTaint: is only allowed when cluster\.mode is "new"/);
  });
});

describe('parseAppConfig accepts a full existing-cluster configuration', () => {
  it('keeps every given value', () => {
    const config = parseAppConfig({
      kubernetesVersion: '1.35',
      cluster: {
        mode: 'existing',
        existing: {
          vpcId: 'vpc-0123456789abcdef0',
          availabilityZones: ['eu-west-1a', 'eu-west-1b'],
          privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
          clusterSecurityGroupId: 'sg-0123456789abcdef0',
        },
      },
      extender: { mutualTls: false, certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123', hostname: 'gpu-extender.internal.example.com' },
      scheduler: { extender: { ignorable: true, weight: 10 } },
    });
    expect(config.cluster).toMatchObject({ mode: 'existing', clusterSecurityGroupId: 'sg-0123456789abcdef0', installPodIdentityAgent: false });
    expect(config.scheduler.kubeSchedulerVersion).toMatch(/^1\.35\.\d+$/);
    expect(config.extender.listenerPort).toBe(443);
    expect(config.scheduler.extender).toMatchObject({ ignorable: true, weight: 10 });
  });
});

describe('loadAppConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-config-'));

  it('reads a YAML file and lets inline context override it key by key', () => {
    writeFileSync(join(dir, 'config.yaml'), 'clusterName: from-file\nlabeler:\n  scheduleMinutes: 10\n  memorySizeMiB: 1024\n');
    const config = loadAppConfig({ cwd: dir, configFile: 'config.yaml', inline: '{"labeler":{"scheduleMinutes":15}}' });
    expect(config.clusterName).toBe('from-file');
    expect(config.labeler.scheduleMinutes).toBe(15);
    expect(config.labeler.memorySizeMiB).toBe(1024);
  });

  it('names the configFile key when the file is missing or malformed', () => {
    expect(() => loadAppConfig({ cwd: dir, configFile: 'missing.json' })).toThrow(/configFile: cannot read/);
    writeFileSync(join(dir, 'bad.json'), '{"clusterName": ');
    expect(() => loadAppConfig({ cwd: dir, configFile: 'bad.json' })).toThrow(/configFile: .*not valid JSON/);
    expect(() => loadAppConfig({ cwd: dir, configFile: 'config.toml' })).toThrow(/configFile: must name a .json, .yaml or .yml file/);
  });
});

describe('the shipped example configuration', () => {
  it('is valid and attaches to an existing cluster', () => {
    const config = loadAppConfig({ cwd: process.cwd(), configFile: 'cdk/app-config/example-existing-cluster.yaml' });
    expect(config.cluster.mode).toBe('existing');
    expect(config.addons.nvidiaDevicePlugin.enabled).toBe(false);
    expect(config.reconciler.environment).toEqual({ POD_NAMESPACES: 'serving' });
  });
});

describe('Karpenter NodePools', () => {
  it('keep listed GPU node groups beside them, and create none by default', () => {
    const both = parseAppConfig({ cluster: { gpuNodeGroups: [{ name: 'fixed', instanceTypes: ['g5.xlarge'] }] } });
    if (both.cluster.mode !== 'new') throw new Error('unreachable');
    expect(both.cluster.gpuCapacity).toBe('karpenter');
    expect(both.cluster.gpuNodeGroups.map((group) => group.name)).toEqual(['fixed']);
    expect(both.cluster.karpenter.nodePools).toHaveLength(1);
  });

  it('keeps every given pool setting, budgets with their reasons and schedule', () => {
    const pool = {
      name: 'h100-spot',
      instanceTypes: ['p5.48xlarge'],
      capacityTypes: ['SPOT', 'ON_DEMAND', 'SPOT'],
      maxGpus: 64,
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '1h30m',
      expireAfter: 'Never',
      disruptionBudgets: [{ nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' }, { nodes: '1' }],
      labels: { team: 'research' },
      taints: [],
    };
    const config = parseAppConfig({ cluster: { karpenter: { nodePools: [pool], amiAlias: 'al2023@v20261115', diskSizeGiB: 500 } } });
    if (config.cluster.mode !== 'new') throw new Error('unreachable');
    expect(config.cluster.karpenter).toEqual({
      amiAlias: 'al2023@v20261115',
      diskSizeGiB: 500,
      nodePools: [
        {
          ...pool,
          instanceFamilies: [],
          capacityTypes: ['SPOT', 'ON_DEMAND'],
          disruptionBudgets: [pool.disruptionBudgets[0], { nodes: '1', reasons: undefined, schedule: undefined, duration: undefined }],
        },
      ],
    });
  });

  it('lets an Auto Mode cluster go without the device plugin, and any other existing cluster keep it', () => {
    const existing = {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
      clusterSecurityGroupId: 'sg-0123456789abcdef0',
    };
    const autoMode = parseAppConfig({ cluster: { mode: 'existing', existing: { ...existing, gpuCapacity: 'auto-mode' } }, addons: { nvidiaDevicePlugin: { enabled: false } } });
    expect(autoMode.cluster).toMatchObject({ gpuCapacity: 'auto-mode' });
    const withKarpenter = parseAppConfig({ cluster: { mode: 'existing', existing: { ...existing, gpuCapacity: 'karpenter' } } });
    expect(withKarpenter.addons.nvidiaDevicePlugin.enabled).toBe(true);
  });
});
