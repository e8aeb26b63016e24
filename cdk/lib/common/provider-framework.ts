import { Stack, Validations } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import type * as cr from 'aws-cdk-lib/custom-resources';

/**
 * cdk-nag findings on the custom-resource framework's own function, whose
 * code and policies aws-cdk-lib fixes. Every custom resource of ours (the
 * GPU instance-type check, the extender's certificates) has one.
 */
export function acknowledgeProviderFramework(provider: cr.Provider): void {
  const handlerFunction = provider.onEventHandler.node.defaultChild;
  const acknowledgments = [
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'aws-cdk-lib custom-resource framework (deploy-time only): the library gives its function the AWS-managed basic execution policy.',
    },
    { id: 'AwsSolutions-L1', reason: 'The custom-resource framework runtime is chosen by aws-cdk-lib, not by this app.' },
  ];
  if (handlerFunction) {
    acknowledgments.push({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(provider).getLogicalId(handlerFunction as CfnElement)}.Arn>:*]`,
      reason: 'The custom-resource framework invokes any version of the check function (Arn:*); scoped to that one function.',
    });
  }
  Validations.of(provider).acknowledge(...acknowledgments);
}
