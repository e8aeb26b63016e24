import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import type { AwsClientConfig } from './aws-client-config';

/*
 * One constructor per client so the endpoint/region rules live in one place.
 * The SDK's own retry (standard mode, 3 attempts) handles throttling; callers
 * add no retry loops of their own.
 */
function sdkOptions(config: AwsClientConfig): { region: string; endpoint?: string } {
  return config.endpoint === undefined ? { region: config.region } : { region: config.region, endpoint: config.endpoint };
}

export function createEc2Client(config: AwsClientConfig): EC2Client {
  return new EC2Client(sdkOptions(config));
}

export function createEksClient(config: AwsClientConfig): EKSClient {
  return new EKSClient(sdkOptions(config));
}

export function createCloudWatchClient(config: AwsClientConfig): CloudWatchClient {
  return new CloudWatchClient(sdkOptions(config));
}
