import { Logger } from '@aws-lambda-powertools/logger';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { awsClientConfigFromEnv, createEc2Client } from '../aws';
import { describeInstanceTypes } from '../aws/instance-type-gpu-info';
import { lazy } from '../common/lazy';
import type { Env } from '../env';
import type { LambdaHandler } from '../observability/instrument-handler';
import { withLambdaContext } from '../observability/instrument-handler';
import { checkGpuInstanceTypes, GpuInstanceTypesError } from './check-gpu-instance-types';

/** The custom resource's properties, as the stack sets them (gpu-instance-type-check.ts). */
export interface GpuInstanceTypesProperties {
  readonly Setting: string;
  readonly InstanceTypes: readonly string[];
}

/** What the custom-resource framework sends back to CloudFormation; `Data.AmiType` is read with Fn::GetAtt. */
export interface GpuInstanceTypesResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: { readonly AmiType: string };
}

export interface GpuInstanceTypesHandlerOptions {
  /** @default process.env */
  readonly env?: Env;
  /** Injected by tests; otherwise built from AWS_REGION / AWS_ENDPOINT_URL. */
  readonly ec2?: EC2Client;
  /** @default a Powertools Logger of the gpu-instance-types service */
  readonly logger?: Logger;
}

/** The `service` of its log lines; it records no metrics, so it is not in the metric catalog. */
export const GPU_INSTANCE_TYPES_SERVICE = 'gpu-instance-types';

/**
 * onEvent handler of the deploy-time custom resource that checks one GPU node
 * group's instance types against DescribeInstanceTypes and answers the AMI
 * type the group needs. A thrown error fails the deployment; the
 * custom-resource framework shows its message in the stack events.
 */
export function createGpuInstanceTypesHandler(options: GpuInstanceTypesHandlerOptions = {}): LambdaHandler<CloudFormationCustomResourceEvent, GpuInstanceTypesResponse> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? new Logger({ serviceName: GPU_INSTANCE_TYPES_SERVICE });
  const clients = lazy(() => {
    const config = awsClientConfigFromEnv(env);
    return { region: config.region, ec2: options.ec2 ?? createEc2Client(config) };
  });

  return withLambdaContext(logger, async (event: CloudFormationCustomResourceEvent) => {
    // Nothing was created, so there is nothing to undo, and a delete must never block the stack's.
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const { setting, instanceTypes } = readProperties(event.ResourceProperties);
    const { region, ec2 } = await clients();
    const verdict = checkGpuInstanceTypes({ setting, instanceTypes, region }, await describeInstanceTypes(ec2, instanceTypes));
    logger.info('GPU instance types accepted', { setting, amiType: verdict.amiType, gpus: verdict.gpus });
    const physicalResourceId = event.RequestType === 'Update' ? event.PhysicalResourceId : `gpu-instance-types:${setting}`;
    return { PhysicalResourceId: physicalResourceId, Data: { AmiType: verdict.amiType } };
  });
}

function readProperties(properties: Record<string, unknown>): { setting: string; instanceTypes: string[] } {
  const setting = properties.Setting;
  const instanceTypes = properties.InstanceTypes;
  if (typeof setting !== 'string' || setting === '') throw new GpuInstanceTypesError('the custom resource needs a Setting (the configuration key of the instance types)');
  if (!Array.isArray(instanceTypes) || !instanceTypes.every((type): type is string => typeof type === 'string')) {
    throw new GpuInstanceTypesError(`${setting}: the custom resource needs InstanceTypes, a list of instance type names`);
  }
  return { setting, instanceTypes: [...new Set(instanceTypes)] };
}
