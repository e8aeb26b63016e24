import type { PipelineFunctionName } from '../lib/functions/lambda-entries';
import { functionNodeOptions } from '../lib/functions/node-options';
import type { AppConfig } from './app-config';
import type { CommonVariables, StackSetVariables } from './stack-set-variables';

export { STACK_SET_VARIABLES, type StackSetVariables } from './stack-set-variables';

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

/** A function's whole environment: its stack-set variables over the config's `environment` map. */
export type FunctionEnvironment<N extends PipelineFunctionName> = Readonly<Record<string, string>> & StackSetVariables[N];

/** The settings the writer reads; the schema checks `environment` maps before a whole AppConfig exists. */
type WriterConfig = Pick<AppConfig, 'clusterName' | 'scheduler' | PipelineFunctionName>;

function common(config: WriterConfig, name: PipelineFunctionName): CommonVariables {
  const nodeOptions = functionNodeOptions(name, config[name].memorySizeMiB);
  return { CLUSTER_NAME: config.clusterName, ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }) };
}

const STACK_SET: { readonly [N in PipelineFunctionName]: (config: WriterConfig, cluster: ClusterEndpoint | undefined) => StackSetVariables[N] } = {
  extender: (config, cluster) => ({
    ...(cluster === undefined ? {} : { CLUSTER_ENDPOINT: cluster.endpoint, CLUSTER_CA_DATA: cluster.caData }),
    EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: `${config.extender.capacityBlockDrainMarginMinutes}m`,
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
