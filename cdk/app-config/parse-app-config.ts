import type {
  AddonsConfig,
  AdmissionConfig,
  AlarmsConfig,
  AppConfig,
  ExistingClusterConfig,
  ExtenderFunctionConfig,
  KubernetesMinorVersion,
  NewClusterConfig,
  NodeGroupConfig,
  ScheduledFunctionConfig,
  SchedulerConfig,
} from './app-config';
import { AWS_API_ACCESS, CAPACITY_TYPES, ENDPOINT_ACCESS, EXISTING_CLUSTER_GPU_CAPACITY, KUBERNETES_VERSIONS, LOG_RETENTION_DAYS, NEW_CLUSTER_GPU_CAPACITY } from './app-config';
import { APP_CONFIG_DEFAULTS as DEFAULTS } from './app-config-defaults';
import { ConfigReader } from './config-reader';
import { parseKarpenter } from './parse-karpenter-config';
import { parseMonitoring } from './parse-monitoring-config';
import { parseNodeLabels, parseTaint } from './node-rules';

/** Environment variables the stack itself sets on every function; config may not override them. */
export const STACK_OWNED_ENV_VARS = ['CLUSTER_NAME', 'NODE_OPTIONS'] as const;

const DNS_LABEL = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, allowed: 'a DNS-1123 label (lowercase letters, digits, "-", at most 63)' };
const CIDR = { pattern: /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/, allowed: 'an IPv4 CIDR such as 10.0.0.0/16' };
const INSTANCE_TYPE = { pattern: /^[a-z][a-z0-9-]*\.[a-z0-9]+$/, allowed: 'an EC2 instance type such as m7i.large' };
/**
 * Only the form is checked at synth: whether a type has NVIDIA GPUs is EC2's
 * to say, and the stack asks it at deploy time (GpuInstanceTypeCheck), so a
 * family released after this code is accepted without a release of it.
 */
const GPU_INSTANCE_TYPE = {
  pattern: INSTANCE_TYPE.pattern,
  allowed: 'an EC2 instance type with NVIDIA GPUs such as g5.xlarge (checked against DescribeInstanceTypes when deploying)',
};
const AVAILABILITY_ZONE = { pattern: /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, allowed: 'an availability zone name such as us-east-1a' };
const ENV_MAP = { keyPattern: /^[A-Za-z_][A-Za-z0-9_]*$/, allowedKeys: 'an environment variable name', maxValueLength: 4096 };

/**
 * Validates raw configuration (from cdk.json context and/or a config file)
 * and fills in defaults. Throws one AppConfigError naming every bad key.
 */
export function parseAppConfig(raw: unknown): AppConfig {
  const root = new ConfigReader(raw, '');
  const clusterName = root.string('clusterName', {
    default: DEFAULTS.clusterName,
    pattern: /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/,
    allowed: 'an EKS cluster name (letters, digits, "-", "_", at most 100, starting with a letter or digit)',
  });
  const kubernetesVersion = root.oneOf('kubernetesVersion', KUBERNETES_VERSIONS, DEFAULTS.kubernetesVersion);
  const logRetentionDays = root.integer('logRetentionDays', { default: DEFAULTS.logRetentionDays, min: 1, max: 3653 });
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(logRetentionDays)) {
    root.report('logRetentionDays', `must be one of ${LOG_RETENTION_DAYS.join(', ')}, got ${logRetentionDays}`);
  }
  const config: AppConfig = {
    stackName: root.string('stackName', {
      default: DEFAULTS.stackName,
      pattern: /^[A-Za-z][A-Za-z0-9-]{0,127}$/,
      allowed: 'a CloudFormation stack name (letters, digits, "-", starting with a letter)',
    }),
    clusterName,
    kubernetesVersion,
    logRetentionDays,
    cluster: parseCluster(root.child('cluster')),
    addons: parseAddons(root.child('addons')),
    scheduler: parseScheduler(root.child('scheduler'), kubernetesVersion),
    extender: parseExtender(root.child('extender')),
    labeler: parseScheduled(root.child('labeler'), DEFAULTS.labeler),
    reconciler: parseScheduled(root.child('reconciler'), DEFAULTS.reconciler),
    alarms: parseAlarms(root.child('alarms')),
    admission: parseAdmission(root.child('admission')),
    monitoring: parseMonitoring(root.child('monitoring')),
    dashboardName: root.string('dashboardName', {
      default: `${clusterName}${DEFAULTS.dashboardNameSuffix}`,
      pattern: /^[A-Za-z0-9_-]{1,255}$/,
      allowed: 'a dashboard name (letters, digits, "-", "_")',
    }),
  };
  root.done();
  if (
    config.alarms.extenderP99LatencyMs >= config.scheduler.extender.httpTimeoutSeconds * 1000 &&
    !root.reported('alarms.extenderP99LatencyMs', 'scheduler.extender.httpTimeoutSeconds')
  ) {
    root.report(
      'alarms.extenderP99LatencyMs',
      `must be below scheduler.extender.httpTimeoutSeconds (${config.scheduler.extender.httpTimeoutSeconds} s), or the alarm fires only after the scheduler has already timed out`,
    );
  }
  if (config.cluster.mode === 'existing' && config.cluster.gpuCapacity === 'auto-mode' && config.addons.nvidiaDevicePlugin.enabled && !root.reported('addons.nvidiaDevicePlugin.enabled')) {
    root.report(
      'addons.nvidiaDevicePlugin.enabled',
      'must be false when cluster.existing.gpuCapacity is "auto-mode": Auto Mode GPU nodes run NVIDIA\'s device plugin themselves, and a second one would advertise the same GPUs',
    );
  }
  root.assertValid();
  return config;
}

function parseCluster(reader: ConfigReader): NewClusterConfig | ExistingClusterConfig {
  const mode = reader.oneOf('mode', ['new', 'existing'] as const, DEFAULTS.cluster.mode);
  const result = mode === 'new' ? parseNewCluster(reader) : parseExistingCluster(reader);
  reader.done();
  return result;
}

function parseNewCluster(reader: ConfigReader): NewClusterConfig {
  const defaults = DEFAULTS.cluster;
  if (reader.has('existing')) reader.report('existing', 'is only allowed when cluster.mode is "existing"');
  const endpointAccess = reader.oneOf('endpointAccess', ENDPOINT_ACCESS, defaults.endpointAccess);
  const publicAccessCidrs = reader.stringList('publicAccessCidrs', { default: defaults.publicAccessCidrs, minItems: 0, ...CIDR });
  if (endpointAccess === 'private' && publicAccessCidrs.length > 0) {
    reader.report('publicAccessCidrs', 'is only allowed when cluster.endpointAccess is "public-and-private"');
  }
  if (endpointAccess === 'public-and-private' && publicAccessCidrs.length === 0 && !reader.reported('publicAccessCidrs')) {
    reader.report('publicAccessCidrs', 'must list the CIDRs allowed to reach the public endpoint when cluster.endpointAccess is "public-and-private" (an open endpoint is never the default)');
  }
  const availabilityZones = reader.stringList('availabilityZones', { default: defaults.availabilityZones, minItems: 0, ...AVAILABILITY_ZONE });
  if (availabilityZones.length === 1) reader.report('availabilityZones', 'must list at least 2 zones (EKS needs subnets in two), or be left out');
  const zoneCount = Math.max(availabilityZones.length, 2);
  const gpuCapacity = reader.oneOf('gpuCapacity', NEW_CLUSTER_GPU_CAPACITY, defaults.gpuCapacity);
  const withKarpenter = gpuCapacity === 'karpenter';
  // Listed GPU groups are kept beside Karpenter (a fixed fleet while workloads
  // move to the NodePools, docs/karpenter.md); none is created by default.
  if (!withKarpenter && reader.has('karpenter')) reader.report('karpenter', 'is only allowed when cluster.gpuCapacity is "karpenter"');
  const karpenter = parseKarpenter(reader.child('karpenter'));
  const gpuNodeGroups = reader
    .objectList('gpuNodeGroups', { minItems: 0, fallback: withKarpenter ? [] : defaults.gpuNodeGroups })
    .map((group) => parseNodeGroup(group, defaults.eachGpuNodeGroup, { instanceType: GPU_INSTANCE_TYPE, fixedName: false }));
  const names = new Set<string>();
  for (const [index, group] of gpuNodeGroups.entries()) {
    if (group.name === 'system' || names.has(group.name)) {
      reader.report(`gpuNodeGroups[${index}].name`, `"${group.name}" is already used; node group names must be unique and not "system"`);
    }
    names.add(group.name);
  }
  return {
    mode: 'new',
    endpointAccess,
    publicAccessCidrs,
    vpcCidr: reader.string('vpcCidr', { default: defaults.vpcCidr, ...CIDR }),
    availabilityZones,
    natGateways: reader.integer('natGateways', { default: defaults.natGateways, min: 1, max: zoneCount }),
    awsApiAccess: reader.oneOf('awsApiAccess', AWS_API_ACCESS, defaults.awsApiAccess),
    adminPrincipalArns: reader.stringList('adminPrincipalArns', {
      default: defaults.adminPrincipalArns,
      minItems: 0,
      pattern: /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/,
      allowed: 'an IAM role or user ARN such as arn:aws:iam::123456789012:role/platform-admins',
    }),
    systemNodeGroup: parseNodeGroup(reader.child('systemNodeGroup'), defaults.systemNodeGroup, { instanceType: INSTANCE_TYPE, fixedName: true }),
    gpuCapacity,
    gpuNodeGroups,
    karpenter,
    gpuNodeStartupTaint: reader.boolean('gpuNodeStartupTaint', defaults.gpuNodeStartupTaint),
  };
}

/** What differs between the system group and the GPU groups besides their defaults. */
interface NodeGroupRules {
  readonly instanceType: { pattern: RegExp; allowed: string };
  /** The system group's name is not configurable. */
  readonly fixedName: boolean;
}

function parseNodeGroup(reader: ConfigReader, defaults: NodeGroupConfig, rules: NodeGroupRules): NodeGroupConfig {
  const name = rules.fixedName
    ? defaults.name
    : reader.string('name', { default: defaults.name, pattern: /^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/, allowed: 'a lowercase name (letters, digits, "-", at most 32)' });
  const instanceTypes = reader.stringList('instanceTypes', {
    default: defaults.instanceTypes,
    minItems: 1,
    ...rules.instanceType,
  });
  const minSize = reader.integer('minSize', { default: defaults.minSize, min: 0, max: 450 });
  const maxSize = reader.integer('maxSize', { default: defaults.maxSize, min: 1, max: 450 });
  if (maxSize < minSize && !reader.reported('minSize', 'maxSize')) reader.report('maxSize', `must be at least minSize (${minSize}), got ${maxSize}`);
  const desiredSize = reader.integer('desiredSize', { default: Math.min(Math.max(defaults.desiredSize, minSize), maxSize), min: 0, max: 450 });
  if ((desiredSize < minSize || desiredSize > maxSize) && !reader.reported('minSize', 'maxSize', 'desiredSize')) {
    reader.report('desiredSize', `must be from minSize (${minSize}) to maxSize (${maxSize}), got ${desiredSize}`);
  }
  const taints = reader.objectList('taints', { minItems: 0, fallback: defaults.taints }).map(parseTaint);
  const group: NodeGroupConfig = {
    name,
    instanceTypes,
    minSize,
    maxSize,
    desiredSize,
    diskSizeGiB: reader.integer('diskSizeGiB', { default: defaults.diskSizeGiB, min: 20, max: 16384 }),
    capacityType: reader.oneOf('capacityType', CAPACITY_TYPES, defaults.capacityType),
    labels: parseNodeLabels(reader, defaults.labels),
    taints,
  };
  reader.done();
  return group;
}

function parseExistingCluster(reader: ConfigReader): ExistingClusterConfig {
  const defaults = DEFAULTS.cluster.existing;
  for (const newOnly of ['endpointAccess', 'publicAccessCidrs', 'vpcCidr', 'availabilityZones', 'natGateways', 'awsApiAccess', 'adminPrincipalArns', 'systemNodeGroup', 'gpuCapacity', 'gpuNodeGroups', 'karpenter', 'gpuNodeStartupTaint']) {
    if (reader.has(newOnly)) reader.report(newOnly, 'is only allowed when cluster.mode is "new"');
  }
  if (!reader.has('existing')) {
    // Its four required keys would each repeat this one problem.
    reader.report('existing', 'is required when cluster.mode is "existing" (vpcId, availabilityZones, privateSubnetIds, clusterSecurityGroupId)');
    return {
      mode: 'existing',
      vpcId: '',
      availabilityZones: [],
      privateSubnetIds: [],
      clusterSecurityGroupId: '',
      gpuCapacity: defaults.gpuCapacity,
      installPodIdentityAgent: defaults.installPodIdentityAgent,
    };
  }
  const existing = reader.child('existing');
  const vpcId = existing.requiredString('vpcId', { pattern: /^vpc-[0-9a-f]{8,17}$/, allowed: 'a VPC id such as vpc-0123456789abcdef0' });
  const availabilityZones = existing.stringList('availabilityZones', { default: defaults.availabilityZones, minItems: 2, ...AVAILABILITY_ZONE });
  const privateSubnetIds = existing.stringList('privateSubnetIds', {
    default: defaults.privateSubnetIds,
    minItems: 2,
    pattern: /^subnet-[0-9a-f]{8,17}$/,
    allowed: 'a subnet id such as subnet-0123456789abcdef0',
  });
  if (privateSubnetIds.length !== availabilityZones.length && !existing.reported('privateSubnetIds', 'availabilityZones')) {
    existing.report('privateSubnetIds', `must list one subnet per availability zone (${availabilityZones.length}), got ${privateSubnetIds.length}`);
  }
  const clusterSecurityGroupId = existing.requiredString('clusterSecurityGroupId', {
    pattern: /^sg-[0-9a-f]{8,17}$/,
    allowed: 'the cluster security group id (sg-...) from `aws eks describe-cluster` resourcesVpcConfig.clusterSecurityGroupId',
  });
  const gpuCapacity = existing.oneOf('gpuCapacity', EXISTING_CLUSTER_GPU_CAPACITY, defaults.gpuCapacity);
  const installPodIdentityAgent = existing.boolean('installPodIdentityAgent', defaults.installPodIdentityAgent);
  existing.done();
  return { mode: 'existing', vpcId, availabilityZones, privateSubnetIds, clusterSecurityGroupId, gpuCapacity, installPodIdentityAgent };
}

function parseAddons(reader: ConfigReader): AddonsConfig {
  const defaults = DEFAULTS.addons;
  const plugin = reader.child('nvidiaDevicePlugin');
  const nvidiaDevicePlugin = {
    enabled: plugin.boolean('enabled', defaults.nvidiaDevicePlugin.enabled),
    chartVersion: plugin.string('chartVersion', { default: defaults.nvidiaDevicePlugin.chartVersion, pattern: /^\d+\.\d+\.\d+$/, allowed: 'a chart version such as 0.17.1' }),
  };
  plugin.done();
  const kueueReader = reader.child('kueue');
  const kueue = {
    enabled: kueueReader.boolean('enabled', defaults.kueue.enabled),
    podsReadyTimeout: kueueReader.string('podsReadyTimeout', { default: defaults.kueue.podsReadyTimeout, pattern: /^\d+(?:s|m|h)$/, allowed: 'a duration such as 90s, 10m or 1h' }),
  };
  kueueReader.done();
  const observability = reader.child('cloudWatchObservability');
  const cloudWatchObservability = {
    enabled: observability.boolean('enabled', defaults.cloudWatchObservability.enabled),
    addonVersion: observability.optionalString('addonVersion', {
      pattern: /^v\d+\.\d+\.\d+-eksbuild\.\d+$/,
      allowed: 'an add-on version such as v4.1.0-eksbuild.1 (from `aws eks describe-addon-versions`)',
    }),
  };
  observability.done();
  reader.done();
  return { nvidiaDevicePlugin, kueue, cloudWatchObservability };
}

function parseScheduler(reader: ConfigReader, kubernetesVersion: KubernetesMinorVersion): SchedulerConfig {
  const defaults = DEFAULTS.scheduler;
  const name = reader.string('name', { default: defaults.name, ...DNS_LABEL });
  const escapedMinor = kubernetesVersion.replace('.', '\\.');
  const kubeSchedulerVersion = reader.string('kubeSchedulerVersion', {
    default: defaults.kubeSchedulerVersion[kubernetesVersion],
    pattern: new RegExp(`^${escapedMinor}\\.\\d+$`),
    allowed: `a ${kubernetesVersion}.x patch release (the scheduler must match kubernetesVersion ${kubernetesVersion})`,
  });
  const resourcesReader = reader.child('resources');
  const cpu = { pattern: /^\d+(\.\d+)?m?$/, allowed: 'a CPU quantity such as 100m or 0.5' };
  const memory = { pattern: /^\d+(Ki|Mi|Gi)$/, allowed: 'a memory quantity such as 128Mi' };
  const resources = {
    cpuRequest: resourcesReader.string('cpuRequest', { default: defaults.resources.cpuRequest, ...cpu }),
    memoryRequest: resourcesReader.string('memoryRequest', { default: defaults.resources.memoryRequest, ...memory }),
    memoryLimit: resourcesReader.string('memoryLimit', { default: defaults.resources.memoryLimit, ...memory }),
  };
  resourcesReader.done();
  const extenderReader = reader.child('extender');
  const extender = {
    weight: extenderReader.integer('weight', { default: defaults.extender.weight, min: 1, max: 100 }),
    ignorable: extenderReader.boolean('ignorable', defaults.extender.ignorable),
    httpTimeoutSeconds: extenderReader.integer('httpTimeoutSeconds', { default: defaults.extender.httpTimeoutSeconds, min: 1, max: 30 }),
    preempt: extenderReader.boolean('preempt', defaults.extender.preempt),
  };
  extenderReader.done();
  const scheduler: SchedulerConfig = {
    name,
    namespace: reader.string('namespace', { default: defaults.namespace, ...DNS_LABEL }),
    kubeSchedulerVersion,
    replicas: reader.integer('replicas', { default: defaults.replicas, min: 1, max: 5 }),
    leaseName: reader.string('leaseName', { default: name, ...DNS_LABEL }),
    verbosity: reader.integer('verbosity', { default: defaults.verbosity, min: 0, max: 10 }),
    resources,
    extender,
  };
  if (scheduler.leaseName === 'kube-scheduler') {
    reader.report('leaseName', 'must not be "kube-scheduler": that lease belongs to the default scheduler');
  }
  reader.done();
  return scheduler;
}

function parseEnvironment(reader: ConfigReader, defaults: Readonly<Record<string, string>>): Record<string, string> {
  const environment = reader.stringMap('environment', { default: defaults, ...ENV_MAP });
  for (const owned of STACK_OWNED_ENV_VARS) {
    if (owned in environment) reader.report(`environment.${owned}`, 'is set by the stack and cannot be overridden');
  }
  for (const name of Object.keys(environment)) {
    if (name.startsWith('AWS_')) reader.report(`environment.${name}`, 'AWS_* variables are reserved by Lambda');
  }
  return environment;
}

function parseExtender(reader: ConfigReader): ExtenderFunctionConfig {
  const defaults = DEFAULTS.extender;
  const mutualTls = reader.boolean('mutualTls', defaults.mutualTls);
  const certificateArn = reader.optionalString('certificateArn', {
    pattern: /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/,
    allowed: 'an ACM certificate ARN',
  });
  const hostname = reader.optionalString('hostname', {
    pattern: /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/,
    allowed: 'a DNS name such as gpu-extender.internal.example.com',
  });
  if (certificateArn !== undefined && hostname === undefined) {
    reader.report('hostname', 'is required with extender.certificateArn: the scheduler verifies the certificate against this name, which you point at the ALB');
  }
  if (certificateArn === undefined && hostname !== undefined) {
    reader.report('hostname', 'is only used with extender.certificateArn');
  }
  if (mutualTls && certificateArn !== undefined) {
    reader.report('certificateArn', 'is only used with extender.mutualTls: false; with mutual TLS the stack issues the server certificate itself');
  }
  const extender: ExtenderFunctionConfig = {
    listenerPort: reader.integer('listenerPort', {
      default: certificateArn === undefined && !mutualTls ? defaults.listenerPort.withoutCertificate : defaults.listenerPort.withCertificate,
      min: 1,
      max: 65535,
    }),
    mutualTls,
    certificateArn,
    hostname,
    memorySizeMiB: reader.integer('memorySizeMiB', { default: defaults.memorySizeMiB, min: 128, max: 10240 }),
    timeoutSeconds: reader.integer('timeoutSeconds', { default: defaults.timeoutSeconds, min: 1, max: 60 }),
    reservedConcurrency: reader.integer('reservedConcurrency', { default: defaults.reservedConcurrency, min: 0, max: 1000 }),
    provisionedConcurrency: reader.integer('provisionedConcurrency', { default: defaults.provisionedConcurrency, min: 0, max: 100 }),
    environment: parseEnvironment(reader, defaults.environment),
  };
  if (extender.reservedConcurrency > 0 && extender.provisionedConcurrency > extender.reservedConcurrency && !reader.reported('reservedConcurrency', 'provisionedConcurrency')) {
    reader.report('provisionedConcurrency', `must not exceed extender.reservedConcurrency (${extender.reservedConcurrency})`);
  }
  reader.done();
  return extender;
}

function parseScheduled(reader: ConfigReader, defaults: ScheduledFunctionConfig): ScheduledFunctionConfig {
  const scheduleMinutes = reader.integer('scheduleMinutes', { default: defaults.scheduleMinutes, min: 1, max: 1440 });
  const timeoutSeconds = reader.integer('timeoutSeconds', { default: defaults.timeoutSeconds, min: 1, max: 900 });
  if (timeoutSeconds >= scheduleMinutes * 60 && !reader.reported('scheduleMinutes', 'timeoutSeconds')) {
    reader.report('timeoutSeconds', `must be below scheduleMinutes × 60 (${scheduleMinutes * 60}) so scheduled runs cannot overlap, got ${timeoutSeconds}`);
  }
  const config: ScheduledFunctionConfig = {
    scheduleMinutes,
    timeoutSeconds,
    memorySizeMiB: reader.integer('memorySizeMiB', { default: defaults.memorySizeMiB, min: 128, max: 10240 }),
    // Lambda's asynchronous-invocation limits, which also bound the EventBridge target's.
    maxEventAgeSeconds: reader.integer('maxEventAgeSeconds', { default: defaults.maxEventAgeSeconds, min: 60, max: 21600 }),
    retryAttempts: reader.integer('retryAttempts', { default: defaults.retryAttempts, min: 0, max: 2 }),
    environment: parseEnvironment(reader, defaults.environment),
  };
  reader.done();
  return config;
}

function parseAlarms(reader: ConfigReader): AlarmsConfig {
  const defaults = DEFAULTS.alarms;
  const createSnsTopic = reader.boolean('createSnsTopic', defaults.createSnsTopic);
  const email = reader.optionalString('email', { pattern: /^[^@\s]+@[^@\s]+\.[^@\s]+$/, allowed: 'an email address' });
  const topicArn = reader.optionalString('topicArn', {
    pattern: /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/,
    allowed: 'an SNS topic ARN',
  });
  if (email !== undefined && !createSnsTopic) reader.report('email', 'needs alarms.createSnsTopic: true (the subscription goes on the topic the stack creates)');
  if (topicArn !== undefined && createSnsTopic) reader.report('topicArn', 'cannot be combined with alarms.createSnsTopic: true; choose one topic');
  const alarms: AlarmsConfig = {
    createSnsTopic,
    email,
    topicArn,
    extender5xxThreshold: reader.integer('extender5xxThreshold', { default: defaults.extender5xxThreshold, min: 1, max: 1_000_000 }),
    extenderErrorsThreshold: reader.integer('extenderErrorsThreshold', { default: defaults.extenderErrorsThreshold, min: 1, max: 1_000_000 }),
    extenderP99LatencyMs: reader.integer('extenderP99LatencyMs', { default: defaults.extenderP99LatencyMs, min: 10, max: 30_000 }),
    lambdaErrorsThreshold: reader.integer('lambdaErrorsThreshold', { default: defaults.lambdaErrorsThreshold, min: 1, max: 1_000_000 }),
    gpuPodPendingMinutes: reader.integer('gpuPodPendingMinutes', { default: defaults.gpuPodPendingMinutes, min: 1, max: 1440 }),
    strandedGpuPercent: reader.integer('strandedGpuPercent', { default: defaults.strandedGpuPercent, min: 1, max: 100 }),
  };
  reader.done();
  return alarms;
}

function parseAdmission(reader: ConfigReader): AdmissionConfig {
  const admission: AdmissionConfig = { gpuAnnotations: reader.oneOf('gpuAnnotations', ['warn', 'deny'] as const, DEFAULTS.admission.gpuAnnotations) };
  reader.done();
  return admission;
}
