import type {
  AdmissionConfig,
  AlarmsConfig,
  AppConfig,
  CloudWatchObservabilityConfig,
  ExistingClusterConfig,
  ExtenderFunctionConfig,
  KarpenterConfig,
  KarpenterNodePoolConfig,
  KubernetesMinorVersion,
  MonitoringConfig,
  NewClusterConfig,
  NodeGroupConfig,
  NodeTaint,
  NvidiaDevicePluginConfig,
  KueueConfig,
  ScheduledFunctionConfig,
  SchedulerConfig,
} from './app-config';
import { KUBERNETES_RELEASES } from './kubernetes-releases';

/*
 * The shape of APP_CONFIG_DEFAULTS. It mirrors the config's key tree and
 * borrows the config types' own properties, so a default cannot have a type
 * its setting does not. It departs from them only where a default is not one
 * plain value: a list whose items have defaults of their own, a default that
 * depends on another setting, or one derived from another setting.
 */

export interface KarpenterDefaults extends Omit<KarpenterConfig, 'nodePools'> {
  /** The pools created when `nodePools` is left out; their other keys come from `eachNodePool`. */
  readonly nodePools: readonly Pick<KarpenterNodePoolConfig, 'name'>[];
  /** Defaults of every item of `nodePools`. */
  readonly eachNodePool: KarpenterNodePoolConfig;
}

export interface NewClusterDefaults extends Omit<NewClusterConfig, 'gpuNodeGroups' | 'karpenter'> {
  readonly karpenter: KarpenterDefaults;
  /** With `gpuCapacity: "node-groups"`, the groups created when `gpuNodeGroups` is left out; their other keys come from `eachGpuNodeGroup`. */
  readonly gpuNodeGroups: readonly Pick<NodeGroupConfig, 'name' | 'instanceTypes'>[];
  /** Defaults of every item of `gpuNodeGroups`. */
  readonly eachGpuNodeGroup: NodeGroupConfig;
  /** Defaults of every item of a node group's `taints`. */
  readonly eachTaint: Omit<NodeTaint, 'key'>;
  readonly existing: Omit<ExistingClusterConfig, 'mode' | 'vpcId' | 'clusterSecurityGroupId'>;
}

export interface AddonsDefaults {
  readonly nvidiaDevicePlugin: NvidiaDevicePluginConfig;
  readonly kueue: KueueConfig;
  readonly cloudWatchObservability: Omit<CloudWatchObservabilityConfig, 'addonVersion'>;
}

export interface SchedulerDefaults extends Omit<SchedulerConfig, 'kubeSchedulerVersion' | 'leaseName'> {
  /** Per `kubernetesVersion`: the scheduler must speak the control plane's API. */
  readonly kubeSchedulerVersion: Readonly<Record<KubernetesMinorVersion, string>>;
}

export interface ExtenderDefaults extends Omit<ExtenderFunctionConfig, 'listenerPort' | 'certificateArn' | 'hostname'> {
  readonly listenerPort: { readonly withoutCertificate: number; readonly withCertificate: number };
}

export interface AppConfigDefaults extends Pick<AppConfig, 'stackName' | 'clusterName' | 'kubernetesVersion' | 'logRetentionDays'> {
  /** `dashboardName` is `clusterName` followed by this, so two clusters' dashboards do not collide. */
  readonly dashboardNameSuffix: string;
  readonly cluster: NewClusterDefaults;
  readonly addons: AddonsDefaults;
  readonly scheduler: SchedulerDefaults;
  readonly extender: ExtenderDefaults;
  readonly labeler: ScheduledFunctionConfig;
  readonly reconciler: ScheduledFunctionConfig;
  readonly alarms: Omit<AlarmsConfig, 'email' | 'topicArn'>;
  readonly admission: AdmissionConfig;
  readonly monitoring: MonitoringConfig;
}

/**
 * Every default of the CDK app's configuration, in one place. parseAppConfig
 * applies them; the `@default` tags in app-config.ts document them and a unit
 * test keeps the two equal, so change a value here and the test names the tag
 * to update.
 */
export const APP_CONFIG_DEFAULTS: AppConfigDefaults = {
  stackName: 'GpuScheduling',
  clusterName: 'gpu-scheduling',
  kubernetesVersion: '1.36',
  logRetentionDays: 30,
  dashboardNameSuffix: '-gpu-scheduling',
  cluster: {
    mode: 'new',
    // An open API endpoint is never the default.
    endpointAccess: 'private',
    publicAccessCidrs: [],
    vpcCidr: '10.0.0.0/16',
    availabilityZones: [],
    natGateways: 1,
    awsApiAccess: 'nat',
    adminPrincipalArns: [],
    systemNodeGroup: {
      name: 'system',
      instanceTypes: ['m7i.large'],
      minSize: 2,
      maxSize: 3,
      desiredSize: 2,
      diskSizeGiB: 50,
      capacityType: 'ON_DEMAND',
      labels: {},
      taints: [],
    },
    // Karpenter launches the GPU type a pending pod needs and removes empty
    // nodes, where a managed group keeps a fixed type running whether used or not.
    gpuCapacity: 'karpenter',
    gpuNodeGroups: [{ name: 'gpu', instanceTypes: ['g5.xlarge', 'g5.2xlarge'] }],
    karpenter: {
      nodePools: [{ name: 'gpu' }],
      amiAlias: 'al2023@latest',
      diskSizeGiB: 100,
      eachNodePool: {
        name: 'gpu',
        // A10G, L4 and L40S: the families the default GPU node group's types came from, plus their successors.
        instanceFamilies: ['g5', 'g6', 'g6e'],
        instanceTypes: [],
        capacityTypes: ['ON_DEMAND'],
        // Caps the bill: 16 GPUs is two 8-GPU nodes or sixteen single-GPU ones.
        maxGpus: 16,
        // Moving a pod off an underused GPU node restarts its job; empty nodes only.
        consolidationPolicy: 'WhenEmpty',
        consolidateAfter: '5m',
        expireAfter: '720h',
        disruptionBudgets: [{ nodes: '10%', reasons: undefined, schedule: undefined, duration: undefined }],
        labels: {},
        // The GPU node groups' taint: keeps pods that do not tolerate it off GPU nodes.
        taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
      },
    },
    gpuNodeStartupTaint: false,
    eachGpuNodeGroup: {
      name: 'gpu',
      instanceTypes: ['g5.xlarge'],
      minSize: 0,
      maxSize: 4,
      desiredSize: 1,
      diskSizeGiB: 100,
      capacityType: 'ON_DEMAND',
      labels: {},
      // Keeps pods that do not tolerate it (everything but GPU workloads) off GPU nodes.
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    },
    eachTaint: { value: '', effect: 'NO_SCHEDULE' },
    existing: {
      availabilityZones: [],
      privateSubnetIds: [],
      gpuCapacity: 'node-groups',
      installPodIdentityAgent: false,
    },
  },
  addons: {
    nvidiaDevicePlugin: { enabled: true, chartVersion: '0.17.1' },
    kueue: { enabled: false, podsReadyTimeout: '10m' },
    cloudWatchObservability: { enabled: true },
  },
  scheduler: {
    name: 'gpu-scheduler',
    namespace: 'kube-system',
    // The table local/build-binaries.ts builds from too: the deployed scheduler is the tested one.
    kubeSchedulerVersion: KUBERNETES_RELEASES,
    replicas: 2,
    verbosity: 2,
    resources: { cpuRequest: '100m', memoryRequest: '128Mi', memoryLimit: '512Mi' },
    // Weight 2: the extender's whole range (9 levels × 2 × 10 = 180 points) stays
    // below a pod's own full preference (in-tree weight 2 × 100); docs/extender.md.
    extender: { weight: 2, ignorable: false, httpTimeoutSeconds: 5, preempt: true },
  },
  extender: {
    mutualTls: true,
    listenerPort: { withoutCertificate: 80, withCertificate: 443 },
    // One full vCPU (Lambda gives CPU in proportion to memory: 1 vCPU at
    // 1,769 MB). A cold instance lists the cluster inside its first request,
    // CPU-bound: at 5,000 nodes / 50,000 pods 2.7 s at 1 vCPU against 8.8 s at
    // 512 MB's 0.29 vCPU (docs/extender.md). Calls last milliseconds and are
    // billed per millisecond, so the price is small, and unlike provisioned
    // concurrency nothing is billed while idle.
    memorySizeMiB: 1769,
    timeoutSeconds: 10,
    // kube-scheduler's leader calls the extender one request at a time; a
    // second instance starts only when a call outlives the scheduler's
    // httpTimeout (5 s) but not the Lambda timeout (10 s). 4 is twice that
    // worst case, and caps the full cluster listings (one per new instance) and the watches at 4.
    reservedConcurrency: 4,
    provisionedConcurrency: 0,
    environment: {},
  },
  labeler: { scheduleMinutes: 5, memorySizeMiB: 256, timeoutSeconds: 240, maxEventAgeSeconds: 3600, retryAttempts: 2, environment: {} },
  reconciler: { scheduleMinutes: 1, memorySizeMiB: 512, timeoutSeconds: 50, maxEventAgeSeconds: 60, retryAttempts: 0, environment: {} },
  admission: { gpuAnnotations: 'warn' },
  monitoring: {
    podMonitor: { enabled: false, labels: {}, prometheusNamespace: 'monitoring', prometheusServiceAccount: 'prometheus', interval: '30s' },
    // kube-prometheus-stack's Grafana sidecar looks for this label by default.
    grafanaDashboard: { enabled: false, namespace: 'monitoring', labels: { grafana_dashboard: '1' } },
  },
  alarms: {
    createSnsTopic: false,
    extender5xxThreshold: 1,
    extenderErrorsThreshold: 1,
    extenderP99LatencyMs: 1000,
    lambdaErrorsThreshold: 1,
    gpuPodPendingMinutes: 15,
    strandedGpuPercent: 25,
  },
};
