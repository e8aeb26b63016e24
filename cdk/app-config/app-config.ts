/**
 * The typed configuration of the CDK app. `parseAppConfig` is the only way to
 * build one, so every field here has been validated and defaulted.
 * docs/deploy.md documents each key; keep the two in step.
 */

export const KUBERNETES_VERSIONS = ['1.34', '1.35'] as const;
export type KubernetesMinorVersion = (typeof KUBERNETES_VERSIONS)[number];

/**
 * The kube-scheduler patch release used for the second scheduler when the
 * config does not name one: the scheduler must speak the same API as the
 * control plane, so its minor version follows `kubernetesVersion`.
 */
export const DEFAULT_KUBE_SCHEDULER_VERSION: Readonly<Record<KubernetesMinorVersion, string>> = {
  '1.34': '1.34.2',
  '1.35': '1.35.0',
};

export const TAINT_EFFECTS = ['NO_SCHEDULE', 'PREFER_NO_SCHEDULE', 'NO_EXECUTE'] as const;
export type TaintEffectName = (typeof TAINT_EFFECTS)[number];

export const CAPACITY_TYPES = ['ON_DEMAND', 'SPOT'] as const;
export type CapacityTypeName = (typeof CAPACITY_TYPES)[number];

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
  readonly key: string;
  readonly value: string;
  readonly effect: TaintEffectName;
}

export interface NodeGroupConfig {
  readonly name: string;
  readonly instanceTypes: readonly string[];
  readonly minSize: number;
  readonly maxSize: number;
  readonly desiredSize: number;
  readonly diskSizeGiB: number;
  readonly capacityType: CapacityTypeName;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly NodeTaint[];
}

export interface NewClusterConfig {
  readonly mode: 'new';
  readonly endpointAccess: EndpointAccessName;
  readonly publicAccessCidrs: readonly string[];
  readonly vpcCidr: string;
  /** Explicit zones; empty = the region's first two (all an environment-agnostic stack can know). */
  readonly availabilityZones: readonly string[];
  readonly natGateways: number;
  readonly awsApiAccess: AwsApiAccessName;
  /** IAM roles or users (ARNs) of the people who operate the cluster; given cluster-admin via access entries. */
  readonly adminPrincipalArns: readonly string[];
  readonly systemNodeGroup: NodeGroupConfig;
  readonly gpuNodeGroups: readonly NodeGroupConfig[];
}

export interface ExistingClusterConfig {
  readonly mode: 'existing';
  readonly vpcId: string;
  readonly availabilityZones: readonly string[];
  readonly privateSubnetIds: readonly string[];
  /** The EKS-created cluster security group: on the control-plane ENIs and on managed nodes. */
  readonly clusterSecurityGroupId: string;
  /** Whether the stack installs the eks-pod-identity-agent add-on (skip when the cluster has it). */
  readonly installPodIdentityAgent: boolean;
}

export interface AddonsConfig {
  readonly nvidiaDevicePlugin: { readonly enabled: boolean; readonly chartVersion: string };
  readonly cloudWatchObservability: { readonly enabled: boolean; readonly addonVersion: string | undefined };
}

export interface SchedulerExtenderConfig {
  readonly weight: number;
  readonly ignorable: boolean;
  readonly httpTimeoutSeconds: number;
  readonly preempt: boolean;
}

export interface SchedulerConfig {
  readonly name: string;
  readonly namespace: string;
  readonly kubeSchedulerVersion: string;
  readonly replicas: number;
  readonly leaseName: string;
  readonly verbosity: number;
  readonly resources: {
    readonly cpuRequest: string;
    readonly memoryRequest: string;
    readonly memoryLimit: string;
  };
  readonly extender: SchedulerExtenderConfig;
}

export interface FunctionConfig {
  readonly memorySizeMiB: number;
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
}

export interface ExtenderFunctionConfig extends FunctionConfig {
  readonly listenerPort: number;
  readonly certificateArn: string | undefined;
  /** DNS name in the certificate that resolves to the ALB; required with certificateArn. */
  readonly hostname: string | undefined;
  readonly reservedConcurrency: number | undefined;
  /** Warm instances behind the ALB (0 = none): a cold start eats into the scheduler's httpTimeout. */
  readonly provisionedConcurrency: number;
}

export interface ScheduledFunctionConfig extends FunctionConfig {
  readonly scheduleMinutes: number;
  readonly maxEventAgeSeconds: number;
  readonly retryAttempts: number;
}

export interface AlarmsConfig {
  readonly createSnsTopic: boolean;
  readonly email: string | undefined;
  readonly topicArn: string | undefined;
  readonly extender5xxThreshold: number;
  readonly extenderErrorsThreshold: number;
  readonly extenderP99LatencyMs: number;
  readonly lambdaErrorsThreshold: number;
}

export interface AppConfig {
  readonly stackName: string;
  readonly clusterName: string;
  readonly kubernetesVersion: KubernetesMinorVersion;
  readonly logRetentionDays: number;
  readonly cluster: NewClusterConfig | ExistingClusterConfig;
  readonly addons: AddonsConfig;
  readonly scheduler: SchedulerConfig;
  readonly extender: ExtenderFunctionConfig;
  readonly labeler: ScheduledFunctionConfig;
  readonly reconciler: ScheduledFunctionConfig;
  readonly alarms: AlarmsConfig;
  readonly dashboardName: string;
}
