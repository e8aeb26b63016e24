import { Validations } from 'aws-cdk-lib';
import type { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { AppConfig } from '../app-config/app-config';
import type { GpuSchedulingStackProps } from './gpu-scheduling-stack';
import { GpuSchedulingStack } from './gpu-scheduling-stack';

/**
 * Adds the pipeline stack and the cdk-nag AwsSolutions checks to an app. The
 * stack has no `env` on purpose: synth needs no credentials and no lookups.
 * A finding that is not acknowledged (with its reason, next to the resource)
 * fails synth.
 */
export function buildApp(app: App, config: AppConfig, extra: Omit<GpuSchedulingStackProps, 'config'> = {}): GpuSchedulingStack {
  const stack = new GpuSchedulingStack(app, config.stackName, {
    ...extra,
    config,
    description: `GPU-aware scheduling pipeline for EKS cluster ${config.clusterName}`,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
