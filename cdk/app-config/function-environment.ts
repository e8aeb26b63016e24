import type { PipelineFunctionName } from '../lib/functions/lambda-entries';
import { functionNodeOptions } from '../lib/functions/node-options';
import type { AppConfig } from './app-config';

// The one writer of each Lambda's environment: the validated config in, the
// variables the function reads out. The stack deploys it and the local
// harness (local/start/function-environment.ts) runs it, adding only its own
// AWS endpoint and local overrides; each Lambda's config reader
// (lambdas/<name>/config.ts and the readers it calls) is the reading side.

/** The API endpoint and CA of a cluster the stack creates, so the extender needs no DescribeCluster (nor the EKS SDK) on a cold start. */
export interface ClusterEndpoint {
  /** https URL of the API server. */
  readonly endpoint: string;
  /** The cluster CA, base64 PEM as DescribeCluster returns it. */
  readonly caData: string;
}

/** What the stack sets on every function. */
interface CommonVariables {
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

/** A function's whole environment: its stack-set variables over the config's `environment` map. */
export type FunctionEnvironment<N extends PipelineFunctionName> = Readonly<Record<string, string>> & StackSetVariables[N];

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
  { name: 'SCHEDULER_NAMESPACE', functions: ['reconciler'], from: 'scheduler.namespace' },
  { name: 'GPU_SCHEDULER_NAME', functions: ['reconciler'], from: 'scheduler.name' },
  { name: 'RUN_INTERVAL', functions: ['reconciler'], from: 'reconciler.scheduleMinutes' },
];

/** The settings the writer reads; the schema checks `environment` maps before a whole AppConfig exists. */
type WriterConfig = Pick<AppConfig, 'clusterName' | 'scheduler' | PipelineFunctionName>;

function common(config: WriterConfig, name: PipelineFunctionName): CommonVariables {
  const nodeOptions = functionNodeOptions(name, config[name].memorySizeMiB);
  return { CLUSTER_NAME: config.clusterName, ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }) };
}

const STACK_SET: { readonly [N in PipelineFunctionName]: (config: WriterConfig, cluster: ClusterEndpoint | undefined) => StackSetVariables[N] } = {
  extender: (config, cluster) => ({
    ...(cluster === undefined ? {} : { CLUSTER_ENDPOINT: cluster.endpoint, CLUSTER_CA_DATA: cluster.caData }),
    ...common(config, 'extender'),
  }),
  labeler: (config) => common(config, 'labeler'),
  reconciler: (config) => ({
    SCHEDULER_NAMESPACE: config.scheduler.namespace,
    GPU_SCHEDULER_NAME: config.scheduler.name,
    RUN_INTERVAL: `${config.reconciler.scheduleMinutes}m`,
    ...common(config, 'reconciler'),
  }),
};

/**
 * The environment of function `name`: the config's `environment` map, then
 * what the stack sets from the rest of the config. `cluster` is the endpoint
 * of a cluster the stack creates (undefined for an attached one).
 */
export function functionEnvironment<N extends PipelineFunctionName>(config: WriterConfig, name: N, cluster?: ClusterEndpoint): FunctionEnvironment<N> {
  return { ...config[name].environment, ...STACK_SET[name](config, cluster) };
}
