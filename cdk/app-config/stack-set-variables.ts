import type { PipelineFunctionName } from '../lib/functions/lambda-entries';

// The variables the stack sets on each function, apart from their writer
// (function-environment.ts) so the schema can refuse them in `environment`
// maps without importing the writer, which needs the schema's types.

/** What the stack sets on every function. */
export interface CommonVariables {
  /** The EKS cluster (its name is the Container Insights ClusterName too). */
  readonly CLUSTER_NAME: string;
  /** Left out when empty, as Lambda runs a function that sets none. */
  readonly NODE_OPTIONS?: string;
}

/** The variables the stack sets on each function; the config's `environment` map can add others but override none. */
export interface StackSetVariables {
  readonly extender: CommonVariables & {
    /** Only for a cluster the stack creates; an attached one is found by DescribeCluster. */
    readonly CLUSTER_ENDPOINT?: string;
    readonly CLUSTER_CA_DATA?: string;
    /** How long before a Capacity Block's end no new pod starts there, beyond the pod's expected runtime (lambdas/scheduling/plugins/capacity-reservation.ts). */
    readonly EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: string;
  };
  readonly labeler: CommonVariables;
  readonly reconciler: CommonVariables & {
    /** Where the second scheduler runs, for reading its /metrics (lambdas/reconciler/scheduler-metrics-config.ts). */
    readonly SCHEDULER_NAMESPACE: string;
    /** Its name: the pods it schedules and its profile, as the outcome metrics read them. */
    readonly GPU_SCHEDULER_NAME: string;
    /** The reconciler's schedule: nodes created since the previous run count as launched (lambdas/reconciler/capacity.ts). */
    readonly RUN_INTERVAL: string;
  };
}

/** Each stack-set variable, the functions it is set on and the setting it comes from, for the config's error when an `environment` map names it. */
export const STACK_SET_VARIABLES: readonly {
  readonly name: keyof (StackSetVariables['extender'] & StackSetVariables['labeler'] & StackSetVariables['reconciler']);
  readonly functions: readonly PipelineFunctionName[];
  readonly from: string;
  /** Set only when the stack creates the cluster. */
  readonly newClusterOnly?: boolean;
}[] = [
  { name: 'CLUSTER_NAME', functions: ['extender', 'labeler', 'reconciler'], from: 'clusterName' },
  { name: 'NODE_OPTIONS', functions: ['extender', 'labeler', 'reconciler'], from: 'the function and its memorySizeMiB' },
  { name: 'CLUSTER_ENDPOINT', functions: ['extender'], from: 'the cluster it creates', newClusterOnly: true },
  { name: 'CLUSTER_CA_DATA', functions: ['extender'], from: 'the cluster it creates', newClusterOnly: true },
  { name: 'EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN', functions: ['extender'], from: 'extender.capacityBlockDrainMarginMinutes' },
  { name: 'SCHEDULER_NAMESPACE', functions: ['reconciler'], from: 'scheduler.namespace' },
  { name: 'GPU_SCHEDULER_NAME', functions: ['reconciler'], from: 'scheduler.name' },
  { name: 'RUN_INTERVAL', functions: ['reconciler'], from: 'reconciler.scheduleMinutes' },
];

