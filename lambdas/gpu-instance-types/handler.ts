import { createGpuInstanceTypesHandler } from './gpu-instance-types-handler';

/** Lambda entry point (CloudFormation custom resource, through the aws-cdk-lib custom-resource framework). */
export const handler = createGpuInstanceTypesHandler();
