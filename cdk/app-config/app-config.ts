/**
 * The typed configuration of the CDK app. `parseAppConfig` is the only way to
 * build one, so every field here has been validated and defaulted.
 *
 * Each property's `@default` tag states the default that parseAppConfig takes
 * from APP_CONFIG_DEFAULTS (app-config-defaults.ts); a unit test fails when a
 * tag and the table disagree. Where one type serves several settings (the
 * system and the GPU node groups, the three functions) the tag lists the
 * default per setting, `setting: value; ...`. A tag starting with `-` is
 * prose: the setting has no default value of its own (required, unset,
 * derived from another setting, or an object whose keys have their own).
 * docs/configuration.md documents each key for operators; keep it in step.
 */

/**
 * The cluster versions EKS gives standard support to (1.34's ended on
 * 2026-12-02). A config naming another version fails with an error that lists
 * these, rather than deploying a scheduler no test has run.
 */
export const KUBERNETES_VERSIONS = ['1.35', '1.36'] as const;
export type KubernetesMinorVersion = (typeof KUBERNETES_VERSIONS)[number];

export const TAINT_EFFECTS = ['NO_SCHEDULE', 'PREFER_NO_SCHEDULE', 'NO_EXECUTE'] as const;
export type TaintEffectName = (typeof TAINT_EFFECTS)[number];

export const CAPACITY_TYPES = ['ON_DEMAND', 'SPOT'] as const;
export type CapacityTypeName = (typeof CAPACITY_TYPES)[number];

/**
 * What provides a new cluster's GPU nodes: Karpenter, which the stack installs
 * and which launches nodes for pending pods, or managed node groups of fixed
 * instance types scaled by hand (`gpuNodeGroups`).
 */
export const NEW_CLUSTER_GPU_CAPACITY = ['karpenter', 'node-groups'] as const;
export type NewClusterGpuCapacity = (typeof NEW_CLUSTER_GPU_CAPACITY)[number];
/** What provides an existing cluster's GPU nodes; the stack installs none of them (docs/karpenter.md). */
export const EXISTING_CLUSTER_GPU_CAPACITY = ['karpenter', 'auto-mode', 'node-groups'] as const;
export type ExistingClusterGpuCapacity = (typeof EXISTING_CLUSTER_GPU_CAPACITY)[number];
/** Karpenter's NodePool `spec.disruption.consolidationPolicy` values. */
export const CONSOLIDATION_POLICIES = ['WhenEmpty', 'WhenEmptyOrUnderutilized'] as const;
export type ConsolidationPolicyName = (typeof CONSOLIDATION_POLICIES)[number];
/** The disruption reasons a NodePool budget may be limited to. */
export const DISRUPTION_REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;
export type DisruptionReasonName = (typeof DISRUPTION_REASONS)[number];

export const ENDPOINT_ACCESS = ['private', 'public-and-private'] as const;
export type EndpointAccessName = (typeof ENDPOINT_ACCESS)[number];

/** How the Lambdas reach AWS APIs (EKS, EC2, CloudWatch): through NAT, or through interface endpoints in the VPC. */
export const AWS_API_ACCESS = ['nat', 'vpc-endpoints'] as const;
export type AwsApiAccessName = (typeof AWS_API_ACCESS)[number];
/** CloudWatch Logs retention periods (days) that the Logs API accepts. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

export interface NodeTaint {
  /** @default - none: required */
  readonly key: string;
  /** @default "" */
  readonly value: string;
  /** @default "NO_SCHEDULE" */
  readonly effect: TaintEffectName;
}

export interface NodeGroupConfig {
  /**
   * The system group's name is fixed.
   *
   * @default systemNodeGroup: "system"; gpuNodeGroups: "gpu"
   */
  readonly name: string;
  /**
   * The GPU group created when `gpuNodeGroups` is left out has its own list (see there).
   *
   * @default systemNodeGroup: ["m7i.large"]; gpuNodeGroups: ["g5.xlarge"]
   */
  readonly instanceTypes: readonly string[];
  /** @default systemNodeGroup: 2; gpuNodeGroups: 0 */
  readonly minSize: number;
  /** @default systemNodeGroup: 3; gpuNodeGroups: 4 */
  readonly maxSize: number;
  /**
   * Raised to `minSize` or lowered to `maxSize` when the default falls outside them.
   *
   * @default systemNodeGroup: 2; gpuNodeGroups: 1
   */
  readonly desiredSize: number;
  /** @default systemNodeGroup: 50; gpuNodeGroups: 100 */
  readonly diskSizeGiB: number;
  /** @default "ON_DEMAND" */
  readonly capacityType: CapacityTypeName;
  /** @default {} */
  readonly labels: Readonly<Record<string, string>>;
  /** @default systemNodeGroup: []; gpuNodeGroups: [{"key":"nvidia.com/gpu","value":"true","effect":"NO_SCHEDULE"}] */
  readonly taints: readonly NodeTaint[];
}

export interface DisruptionBudgetConfig {
  /**
   * Most nodes of the pool Karpenter may disrupt at once: a count ("1") or a share ("10%").
   *
   * @default - none: required
   */
  readonly nodes: string;
  /** @default - unset: the budget applies to every reason */
  readonly reasons: readonly DisruptionReasonName[] | undefined;
  /**
   * Cron schedule (UTC) at which the budget starts to apply; needs `duration`.
   *
   * @default - unset: the budget always applies
   */
  readonly schedule: string | undefined;
  /** @default - unset; required with schedule */
  readonly duration: string | undefined;
}

export interface KarpenterNodePoolConfig {
  /** @default "gpu" */
  readonly name: string;
  /**
   * EC2 instance families (e.g. g6e, p5) the pool may launch; set this or `instanceTypes`.
   *
   * @default ["g5","g6","g6e"]
   */
  readonly instanceFamilies: readonly string[];
  /**
   * Exact EC2 instance types instead of families; a list here clears the default families.
   *
   * @default []
   */
  readonly instanceTypes: readonly string[];
  /** @default ["ON_DEMAND"] */
  readonly capacityTypes: readonly CapacityTypeName[];
  /**
   * Most GPUs the pool's nodes may hold in total (NodePool `limits: {nvidia.com/gpu: N}`).
   *
   * @default 16
   */
  readonly maxGpus: number;
  /**
   * `WhenEmpty` removes only nodes without pods; `WhenEmptyOrUnderutilized` also moves pods to pack nodes, which restarts GPU jobs.
   *
   * @default "WhenEmpty"
   */
  readonly consolidationPolicy: ConsolidationPolicyName;
  /** @default "5m" */
  readonly consolidateAfter: string;
  /**
   * Node lifetime before Karpenter replaces it (picks up new AMIs), or "Never".
   *
   * @default "720h"
   */
  readonly expireAfter: string;
  /** @default [{"nodes":"10%"}] */
  readonly disruptionBudgets: readonly DisruptionBudgetConfig[];
  /** @default {} */
  readonly labels: Readonly<Record<string, string>>;
  /** @default [{"key":"nvidia.com/gpu","value":"true","effect":"NO_SCHEDULE"}] */
  readonly taints: readonly NodeTaint[];
}

export interface KarpenterConfig {
  /**
   * Each pool's other keys take the KarpenterNodePoolConfig defaults.
   *
   * @default [{"name":"gpu"}]
   */
  readonly nodePools: readonly KarpenterNodePoolConfig[];
  /**
   * The EC2NodeClass's AMI: the AL2023 family, whose NVIDIA variant Karpenter picks for NVIDIA instance
   * types. `al2023@latest` follows each new release (nodes drift and are replaced within the budgets);
   * `al2023@vYYYYMMDD` pins one.
   *
   * @default "al2023@latest"
   */
  readonly amiAlias: string;
  /** @default 100 */
  readonly diskSizeGiB: number;
}

export interface NewClusterConfig {
  /** @default "new" */
  readonly mode: 'new';
  /** @default "private" */
  readonly endpointAccess: EndpointAccessName;
  /** @default [] */
  readonly publicAccessCidrs: readonly string[];
  /** @default "10.0.0.0/16" */
  readonly vpcCidr: string;
  /**
   * Explicit zones; empty = the region's first two (all an environment-agnostic stack can know).
   *
   * @default []
   */
  readonly availabilityZones: readonly string[];
  /** @default 1 */
  readonly natGateways: number;
  /** @default "nat" */
  readonly awsApiAccess: AwsApiAccessName;
  /**
   * IAM roles or users (ARNs) of the people who operate the cluster; given cluster-admin via access entries.
   *
   * @default []
   */
  readonly adminPrincipalArns: readonly string[];
  /** @default - the NodeGroupConfig defaults for systemNodeGroup */
  readonly systemNodeGroup: NodeGroupConfig;
  /** @default "karpenter" */
  readonly gpuCapacity: NewClusterGpuCapacity;
  /**
   * With Karpenter, listed groups run beside its NodePools (a fixed fleet while workloads move over).
   * Each group's other keys take the NodeGroupConfig defaults for gpuNodeGroups.
   *
   * @default - with gpuCapacity "node-groups": [{"name":"gpu","instanceTypes":["g5.xlarge","g5.2xlarge"]}]; with "karpenter": []
   */
  readonly gpuNodeGroups: readonly NodeGroupConfig[];
  /**
   * Only with `gpuCapacity: "karpenter"`.
   *
   * @default - the KarpenterConfig defaults
   */
  readonly karpenter: KarpenterConfig;
  /**
   * GPU nodes start with the taint `gpu.nvidia.com/labels-pending=true:NoSchedule`, which the
   * labeler lifts once their labels are right, so no pod lands on a node before it is labelled.
   *
   * @default false
   */
  readonly gpuNodeStartupTaint: boolean;
}

export interface ExistingClusterConfig {
  /** @default - none: cluster.mode defaults to "new" */
  readonly mode: 'existing';
  /** @default - none: required */
  readonly vpcId: string;
  /**
   * docs/configuration.md calls this and `privateSubnetIds` required, but the
   * minimum of two applies only to a list that is given: left out, both are
   * empty and pass the one-subnet-per-zone check.
   *
   * @default []
   */
  readonly availabilityZones: readonly string[];
  /** @default [] */
  readonly privateSubnetIds: readonly string[];
  /**
   * The EKS-created cluster security group: on the control-plane ENIs and on managed nodes.
   *
   * @default - none: required
   */
  readonly clusterSecurityGroupId: string;
  /**
   * What gives the cluster its GPU nodes; the stack installs none of them, see docs/karpenter.md.
   *
   * @default "node-groups"
   */
  readonly gpuCapacity: ExistingClusterGpuCapacity;
  /**
   * Whether the stack installs the eks-pod-identity-agent add-on (skip when the cluster has it).
   *
   * @default false
   */
  readonly installPodIdentityAgent: boolean;
}

export interface NvidiaDevicePluginConfig {
  /** @default true */
  readonly enabled: boolean;
  /** @default "0.17.1" */
  readonly chartVersion: string;
}

export interface CloudWatchObservabilityConfig {
  /** @default true */
  readonly enabled: boolean;
  /** @default - unset: EKS picks the add-on version */
  readonly addonVersion: string | undefined;
}

export interface KueueConfig {
  /**
   * Install Kueue (chart pinned to the release the local harness tests) with a Topology of EKS's network
   * layers and one ResourceFlavor per GPU instance type of the stack's node groups and NodePools; docs/kueue.md.
   *
   * @default false
   */
  readonly enabled: boolean;
  /**
   * How long an admitted job may take to have all its pods Ready before Kueue evicts and requeues it (waitForPodsReady).
   *
   * @default "10m"
   */
  readonly podsReadyTimeout: string;
}

export interface AddonsConfig {
  /** @default - the NvidiaDevicePluginConfig defaults */
  readonly nvidiaDevicePlugin: NvidiaDevicePluginConfig;
  /** @default - the KueueConfig defaults */
  readonly kueue: KueueConfig;
  /** @default - the CloudWatchObservabilityConfig defaults */
  readonly cloudWatchObservability: CloudWatchObservabilityConfig;
}

export interface SchedulerExtenderConfig {
  /** @default 2 */
  readonly weight: number;
  /** @default false */
  readonly ignorable: boolean;
  /** @default 5 */
  readonly httpTimeoutSeconds: number;
  /** @default true */
  readonly preempt: boolean;
}

export interface SchedulerResourcesConfig {
  /** @default "100m" */
  readonly cpuRequest: string;
  /** @default "128Mi" */
  readonly memoryRequest: string;
  /** @default "512Mi" */
  readonly memoryLimit: string;
}

export interface SchedulerConfig {
  /** @default "gpu-scheduler" */
  readonly name: string;
  /** @default "kube-system" */
  readonly namespace: string;
  /**
   * Per `kubernetesVersion`: the scheduler must speak the same API as the control plane.
   *
   * @default 1.35: "1.35.4"; 1.36: "1.36.3"
   */
  readonly kubeSchedulerVersion: string;
  /** @default 2 */
  readonly replicas: number;
  /** @default - the scheduler's `name` */
  readonly leaseName: string;
  /** @default 2 */
  readonly verbosity: number;
  /** @default - the SchedulerResourcesConfig defaults */
  readonly resources: SchedulerResourcesConfig;
  /** @default - the SchedulerExtenderConfig defaults */
  readonly extender: SchedulerExtenderConfig;
}

export interface FunctionConfig {
  /**
   * The extender's is one vCPU's worth (Lambda gives CPU with memory) for a cold instance's listing (docs/extender.md).
   *
   * @default extender: 1769; labeler: 256; reconciler: 512
   */
  readonly memorySizeMiB: number;
  /**
   * The labeler's must cover its wait for a node to register after `running` (docs/labeler.md).
   *
   * @default extender: 10; labeler: 240; reconciler: 50
   */
  readonly timeoutSeconds: number;
  /** @default {} */
  readonly environment: Readonly<Record<string, string>>;
}

export interface ExtenderFunctionConfig extends FunctionConfig {
  /**
   * Only kube-scheduler may call the extender: the ALB listener is HTTPS with mutual TLS in verify
   * mode, its trust store holding CAs the stack makes, and the scheduler presents a client
   * certificate the stack issues and rotates (docs/deploy.md, "Who can call the extender").
   * `false` is the opt-out: plain HTTP (or HTTPS with `certificateArn`), which anyone who reaches
   * the ALB can call.
   *
   * @default true
   */
  readonly mutualTls: boolean;
  /**
   * HTTPS with mutual TLS or `certificateArn`, otherwise HTTP.
   *
   * @default withoutCertificate: 80; withCertificate: 443
   */
  readonly listenerPort: number;
  /** Only with `mutualTls: false`. @default - unset: the listener serves plain HTTP */
  readonly certificateArn: string | undefined;
  /**
   * DNS name in the certificate that resolves to the ALB; required with certificateArn.
   *
   * @default - unset
   */
  readonly hostname: string | undefined;
  /**
   * Most extender instances at once (0 = no reservation: the account's unreserved pool, unbounded).
   * Each new instance lists every node and bound pod once, then reads only the changes (one watch
   * per EXTENDER_CACHE_TTL while it serves), so this bounds the API-server load: the full listings
   * and the watches of at most this many instances. kube-scheduler calls the extender serially, so a few suffice
   * and a request past the bound is throttled (503), which leaves the pod Pending until a retry.
   *
   * @default 4
   */
  readonly reservedConcurrency: number;
  /**
   * Warm instances behind the ALB (0 = none): a cold start eats into the scheduler's httpTimeout.
   * A provisioned instance lists the cluster during its INIT (AWS_LAMBDA_INITIALIZATION_TYPE
   * `provisioned-concurrency`), before any request, so its first answer is served from a warm
   * cache: at 5,000 nodes / 50,000 pods that moves seconds of listing out of the first request
   * (docs/extender.md, "Concurrency, throttling and cold starts"). Each provisioned instance keeps
   * one watch-based refresh per EXTENDER_CACHE_TTL while it serves, and is billed while idle.
   *
   * @default 0
   */
  readonly provisionedConcurrency: number;
}

export interface ScheduledFunctionConfig extends FunctionConfig {
  /** @default labeler: 5; reconciler: 1 */
  readonly scheduleMinutes: number;
  /** @default labeler: 3600; reconciler: 60 */
  readonly maxEventAgeSeconds: number;
  /** @default labeler: 2; reconciler: 0 */
  readonly retryAttempts: number;
}

export interface AlarmsConfig {
  /** @default false */
  readonly createSnsTopic: boolean;
  /** @default - unset: no e-mail subscription */
  readonly email: string | undefined;
  /** @default - unset: notifications go only to the topic the stack creates, if any */
  readonly topicArn: string | undefined;
  /** @default 1 */
  readonly extender5xxThreshold: number;
  /** @default 1 */
  readonly extenderErrorsThreshold: number;
  /** @default 1000 */
  readonly extenderP99LatencyMs: number;
  /** @default 1 */
  readonly lambdaErrorsThreshold: number;
  /** Alarm when the oldest GPU pod pending for the GPU scheduler has waited longer than this. @default 15 */
  readonly gpuPodPendingMinutes: number;
  /** Alarm when more than this share of the GPUs is stranded (idle, but of no use to the workload's typical shapes). @default 25 */
  readonly strandedGpuPercent: number;
}

export interface AdmissionConfig {
  /**
   * What the API server does with a pod whose `gpu.nvidia.com/*` annotation keys are unknown or whose
   * values are malformed: `warn` admits it with a warning kubectl prints; `deny` refuses it (docs/deploy.md).
   *
   * @default "warn"
   */
  readonly gpuAnnotations: 'warn' | 'deny';
}

/** A PodMonitor for the second scheduler, for a Prometheus Operator's Prometheus (docs/monitoring.md). */
export interface PodMonitorConfig {
  /** @default false */
  readonly enabled: boolean;
  /**
   * Labels on the PodMonitor, for the Prometheus's `podMonitorSelector` (kube-prometheus-stack selects
   * `release: <its release name>` unless told otherwise).
   *
   * @default {}
   */
  readonly labels: Readonly<Record<string, string>>;
  /** Namespace of the Prometheus's ServiceAccount, which gets read access to the scheduler's pods. @default "monitoring" */
  readonly prometheusNamespace: string;
  /** The Prometheus's ServiceAccount. @default "prometheus" */
  readonly prometheusServiceAccount: string;
  /** Scrape interval. @default "30s" */
  readonly interval: string;
}

/** The Grafana dashboard as a ConfigMap that Grafana's dashboard sidecar loads (docs/monitoring.md). */
export interface GrafanaDashboardConfig {
  /** @default false */
  readonly enabled: boolean;
  /** Namespace the sidecar watches. @default "monitoring" */
  readonly namespace: string;
  /** Labels the sidecar selects ConfigMaps by. @default {"grafana_dashboard":"1"} */
  readonly labels: Readonly<Record<string, string>>;
}

export interface MonitoringConfig {
  /** @default - the PodMonitorConfig defaults (off) */
  readonly podMonitor: PodMonitorConfig;
  /** @default - the GrafanaDashboardConfig defaults (off) */
  readonly grafanaDashboard: GrafanaDashboardConfig;
}

export interface AppConfig {
  /** @default "GpuScheduling" */
  readonly stackName: string;
  /** @default "gpu-scheduling" */
  readonly clusterName: string;
  /** @default "1.36" */
  readonly kubernetesVersion: KubernetesMinorVersion;
  /** @default 30 */
  readonly logRetentionDays: number;
  /** @default - a new cluster with the NewClusterConfig defaults */
  readonly cluster: NewClusterConfig | ExistingClusterConfig;
  /** @default - the AddonsConfig defaults */
  readonly addons: AddonsConfig;
  /** @default - the SchedulerConfig defaults */
  readonly scheduler: SchedulerConfig;
  /** @default - the ExtenderFunctionConfig defaults */
  readonly extender: ExtenderFunctionConfig;
  /** @default - the ScheduledFunctionConfig defaults for the labeler */
  readonly labeler: ScheduledFunctionConfig;
  /** @default - the ScheduledFunctionConfig defaults for the reconciler */
  readonly reconciler: ScheduledFunctionConfig;
  /** @default - the AlarmsConfig defaults */
  readonly alarms: AlarmsConfig;
  /** @default - the AdmissionConfig defaults */
  readonly admission: AdmissionConfig;
  /** @default - the MonitoringConfig defaults: no Prometheus or Grafana objects */
  readonly monitoring: MonitoringConfig;
  /** @default - `<clusterName>-gpu-scheduling` */
  readonly dashboardName: string;
}
