// The environment each Lambda gets: what the CDK stack sets in AWS (the one
// writer of it, cdk/app-config/function-environment.ts), plus the local
// wiring: AWS_ENDPOINT_URL & co. pointing at moto, local defaults, and
// leaving out what has no local counterpart (LOCAL_WITHHELD). Its
// cluster connection, the kubeconfig of its own least-privilege identity, is
// injected by the worker (LocalLambdaOptions.kubeconfig), not read from here.
import type { AppConfig } from '../../cdk/app-config/app-config';
import { functionEnvironment as deployedEnvironment, type ClusterEndpoint } from '../../cdk/app-config/function-environment';
import type { PipelineFunctionName } from '../../cdk/lib/functions/lambda-entries';
import { awsEnvironment } from '../aws/moto';

/**
 * Local defaults that apply unless the config's `environment` sets the
 * variable. The demo places GPU pods one after another, seconds apart; with
 * the 5 s default cache the extender could still see a node as it was before
 * the previous placement (the gpu-scheduler leaves GPU counting to it).
 */
export const LOCAL_DEFAULTS: Readonly<Record<PipelineFunctionName, Readonly<Record<string, string>>>> = {
  extender: { EXTENDER_CACHE_TTL: '500ms' },
  labeler: {},
  reconciler: {},
};

/**
 * What the stack sets that the local pipeline leaves out. The local
 * gpu-scheduler is a process, not a pod in SCHEDULER_NAMESPACE that the
 * reconciler could find and scrape through the API server, so its metrics
 * step stays off (test/e2e/scheduler-metrics.test.ts runs it against one).
 */
export const LOCAL_WITHHELD: Readonly<Record<PipelineFunctionName, readonly string[]>> = {
  extender: [],
  labeler: [],
  reconciler: ['SCHEDULER_NAMESPACE'],
};

export interface LocalWiring {
  readonly motoUrl: string;
  /** The local API server, which stands for the cluster a new-cluster config makes the stack create. */
  readonly cluster?: ClusterEndpoint;
}

export function functionEnvironment(config: AppConfig, name: PipelineFunctionName, local: LocalWiring): Record<string, string> {
  const deployed: Record<string, string> = { ...deployedEnvironment(config, name, config.cluster.mode === 'new' ? local.cluster : undefined) };
  for (const variable of LOCAL_WITHHELD[name]) delete deployed[variable];
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    // What the Lambda runtime sets in a container started by a request (no
    // provisioned concurrency locally); Powertools' cold_start reads it.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...LOCAL_DEFAULTS[name],
    ...deployed,
    ...awsEnvironment(local.motoUrl),
  };
}
