import type { z } from 'zod';
import type { appConfigSchema } from './app-config-schema';

/**
 * The typed configuration of the CDK app: what parseAppConfig returns, so
 * every value has been validated and defaulted. The types come from the
 * schema (app-config-schema.ts), which states each setting once: its type,
 * default, bounds and meaning; docs/configuration.md's tables are generated
 * from it (`npm run config:docs`).
 */
export type AppConfig = z.output<typeof appConfigSchema>;

export { KUBERNETES_VERSIONS, type KubernetesMinorVersion } from './kubernetes-releases';
export { LOG_RETENTION_DAYS } from './app-config-schema';
export { AWS_API_ACCESS, ENDPOINT_ACCESS, EXISTING_CLUSTER_GPU_CAPACITY, NEW_CLUSTER_GPU_CAPACITY } from './cluster-schema';
export { CONSOLIDATION_POLICIES, DISRUPTION_REASONS } from './karpenter-schema';
export { CAPACITY_TYPES, TAINT_EFFECTS } from './node-group-schema';

export type NewClusterConfig = Extract<AppConfig['cluster'], { readonly mode: 'new' }>;
export type ExistingClusterConfig = Extract<AppConfig['cluster'], { readonly mode: 'existing' }>;
export type NodeGroupConfig = NewClusterConfig['gpuNodeGroups'][number];
export type NodeTaint = NodeGroupConfig['taints'][number];
export type KarpenterConfig = NewClusterConfig['karpenter'];
export type KarpenterNodePoolConfig = KarpenterConfig['nodePools'][number];
export type DisruptionBudgetConfig = KarpenterNodePoolConfig['disruptionBudgets'][number];
export type TaintEffectName = NodeTaint['effect'];
export type CapacityTypeName = NodeGroupConfig['capacityType'];
export type NewClusterGpuCapacity = NewClusterConfig['gpuCapacity'];
export type ExistingClusterGpuCapacity = ExistingClusterConfig['gpuCapacity'];
export type ConsolidationPolicyName = KarpenterNodePoolConfig['consolidationPolicy'];
export type DisruptionReasonName = NonNullable<DisruptionBudgetConfig['reasons']>[number];
export type EndpointAccessName = NewClusterConfig['endpointAccess'];
export type AwsApiAccessName = NewClusterConfig['awsApiAccess'];
export type AddonsConfig = AppConfig['addons'];
export type NvidiaDevicePluginConfig = AddonsConfig['nvidiaDevicePlugin'];
export type KueueConfig = AddonsConfig['kueue'];
export type CloudWatchObservabilityConfig = AddonsConfig['cloudWatchObservability'];
export type SchedulerConfig = AppConfig['scheduler'];
export type SchedulerExtenderConfig = SchedulerConfig['extender'];
export type SchedulerResourcesConfig = SchedulerConfig['resources'];
export type ExtenderFunctionConfig = AppConfig['extender'];
export type ScheduledFunctionConfig = AppConfig['labeler'];
export type ReconcilerFunctionConfig = AppConfig['reconciler'];
/** What every function has: its size, timeout and extra environment. */
export type FunctionConfig = Pick<ExtenderFunctionConfig, 'memorySizeMiB' | 'timeoutSeconds' | 'environment'>;
export type AlarmsConfig = AppConfig['alarms'];
export type AdmissionConfig = AppConfig['admission'];
export type MonitoringConfig = AppConfig['monitoring'];
export type PodMonitorConfig = MonitoringConfig['podMonitor'];
export type GrafanaDashboardConfig = MonitoringConfig['grafanaDashboard'];
