export { awsClientConfigFromEnv } from './aws-client-config';
export type { AwsClientConfig } from './aws-client-config';
export { createCloudWatchClient, createEc2Client, createEksClient } from './clients';
export { createInstanceTypeGpuCatalog, toGpuInfo } from './instance-type-gpu-info';
export type { GpuDevice, InstanceTypeGpuCatalog, InstanceTypeGpuInfo } from './instance-type-gpu-info';
export { describeInstance, describeInstances, describeInstancesByPrivateDnsName, INSTANCE_IDS_PER_CALL, toInstanceSummary } from './instances';
export type { InstanceSummary } from './instances';
export { describeCapacityReservations, RESERVATION_IDS_PER_CALL, toReservationSummary } from './capacity-reservations';
export type { CapacityReservationSummary } from './capacity-reservations';
