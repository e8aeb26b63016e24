// The environment each Lambda gets: what the CDK stack sets in AWS
// (cdk/lib/functions/pipeline-function.ts: the config's `environment` map,
// then CLUSTER_NAME), plus the local wiring: AWS_ENDPOINT_URL & co. pointing at
// moto. Its cluster, the kubeconfig of its own least-privilege identity, is
// injected by the worker (LocalLambdaOptions.kubeconfig), not set here.
import type { AppConfig } from '../../cdk/app-config/app-config';
import type { PipelineFunctionName } from '../../cdk/lib/functions/lambda-entries';
import { awsEnvironment } from '../moto';

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

export function functionEnvironment(
  config: AppConfig,
  name: PipelineFunctionName,
  local: { motoUrl: string },
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    // What the Lambda runtime sets in a container started by a request (no
    // provisioned concurrency locally); Powertools' cold_start reads it.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...LOCAL_DEFAULTS[name],
    ...config[name].environment,
    CLUSTER_NAME: config.clusterName,
    ...awsEnvironment(local.motoUrl),
  };
}
