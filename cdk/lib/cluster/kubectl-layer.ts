import { KubectlV35Layer } from '@aws-cdk/lambda-layer-kubectl-v35';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * kubectl 1.35 and helm for the deploy-time kubectl provider. kubectl
 * supports one minor version of skew either way, which covers every
 * `kubernetesVersion` the config allows (1.35, 1.36).
 */
export function kubectlLayer(scope: Construct): lambda.ILayerVersion {
  return new KubectlV35Layer(scope, 'KubectlLayer');
}
