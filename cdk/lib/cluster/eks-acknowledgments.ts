import { CfnCondition, Stack, Validations } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

function managedPolicyFinding(policy: string): string {
  return `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policy}]`;
}

function logicalId(element: IConstruct): string {
  return Stack.of(element).getLogicalId(element as CfnElement);
}

/**
 * cdk-nag findings on the kubectl provider that aws-eks-v2 builds: a
 * deploy-time custom resource, not part of the runtime pipeline. Its policies
 * are fixed by the library, so they are acknowledged here with the reason.
 */
export function acknowledgeKubectlProvider(provider: IConstruct): void {
  const handler = provider.node.findChild('Handler');
  const condition = handler.node.children.find((child): child is CfnCondition => child instanceof CfnCondition);
  const handlerFunction = handler.node.defaultChild;
  const reasons = {
    managed:
      'aws-eks-v2 kubectl provider (deploy-time only): the library attaches the AWS-managed Lambda execution, VPC access and ECR read-only policies to apply manifests and pull Helm charts.',
  };
  const acknowledgments = [
    { id: managedPolicyFinding('service-role/AWSLambdaBasicExecutionRole'), reason: reasons.managed },
    { id: managedPolicyFinding('service-role/AWSLambdaVPCAccessExecutionRole'), reason: reasons.managed },
    { id: managedPolicyFinding('AmazonEC2ContainerRegistryReadOnly'), reason: reasons.managed },
    {
      id: 'AwsSolutions-L1',
      reason: 'The kubectl provider and its custom-resource framework runtimes are chosen by aws-cdk-lib, not by this app.',
    },
  ];
  if (condition) {
    const publicEcrPolicy = JSON.stringify({
      'Fn::If': [
        logicalId(condition),
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly']] },
        { Ref: 'AWS::NoValue' },
      ],
    });
    acknowledgments.push({ id: `AwsSolutions-IAM4[Policy::${publicEcrPolicy}]`, reason: reasons.managed });
  }
  if (handlerFunction) {
    acknowledgments.push({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(handlerFunction)}.Arn>:*]`,
      reason: 'The custom-resource framework invokes any version of the kubectl handler function (Arn:*); scoped to that one function.',
    });
  }
  Validations.of(provider).acknowledge(...acknowledgments);
}

/** Findings on the cluster role and node roles the aws-eks-v2 constructs create. */
export function acknowledgeClusterRoles(cluster: IConstruct): void {
  const reason =
    'EKS requires these AWS-managed policies on the cluster role (AmazonEKSClusterPolicy) and on managed node group roles (worker node, CNI, ECR read-only); AWS maintains them as EKS evolves.';
  Validations.of(cluster).acknowledge(
    ...['AmazonEKSClusterPolicy', 'AmazonEKSWorkerNodePolicy', 'AmazonEKS_CNI_Policy', 'AmazonEC2ContainerRegistryReadOnly'].map((policy) => ({
      id: managedPolicyFinding(policy),
      reason,
    })),
  );
}
