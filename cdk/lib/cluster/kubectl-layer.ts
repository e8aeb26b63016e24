import { KubectlV36Layer } from '@aws-cdk/lambda-layer-kubectl-v36';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * kubectl 1.36 and helm for the deploy-time kubectl provider, matching the
 * default cluster version. kubectl supports one minor version of skew
 * either way, which also covers the other `kubernetesVersion` the config
 * allows (1.35).
 */
export function kubectlLayer(scope: Construct): lambda.ILayerVersion {
  return new KubectlV36Layer(scope, 'KubectlLayer');
}
