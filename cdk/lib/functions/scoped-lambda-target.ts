import { Names, Stack } from 'aws-cdk-lib';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { TargetType } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/** A target group name for `scope`: unique per stack path, within ELB's 32 characters. */
export function targetGroupName(scope: Construct): string {
  return Names.uniqueResourceName(scope, { maxLength: 32, separator: '-' }).replace(/^-+|-+$/g, '');
}

/**
 * A Lambda target whose invoke permission names its one target group
 * (`SourceArn`), where aws-cdk-lib's LambdaTarget lets any target group of
 * the account invoke the function — through a listener of another load
 * balancer, without the mutual TLS this one requires. The permission cannot
 * name the target group's own ARN (the target group needs the permission
 * before it registers the function: a cycle), so the target group gets a
 * fixed name and the permission names every ARN of that name in the stack's
 * account and region (ELB appends a random suffix to it).
 */
export class ScopedLambdaTarget implements elbv2.IApplicationLoadBalancerTarget {
  constructor(
    private readonly fn: lambda.IFunction,
    private readonly groupName: string,
  ) {}

  attachToApplicationTargetGroup(targetGroup: elbv2.IApplicationTargetGroup): elbv2.LoadBalancerTargetProps {
    const stack = Stack.of(targetGroup);
    const id = 'InvokeFromItsTargetGroup';
    this.fn.addPermission(id, {
      principal: new iam.ServicePrincipal('elasticloadbalancing.amazonaws.com'),
      action: 'lambda:InvokeFunction',
      sourceArn: `arn:${stack.partition}:elasticloadbalancing:${stack.region}:${stack.account}:targetgroup/${this.groupName}/*`,
    });
    const permission = this.fn.permissionsNode.tryFindChild(id);
    if (permission !== undefined) targetGroup.node.addDependency(permission);
    return { targetType: TargetType.LAMBDA, targetJson: { id: this.fn.functionArn } };
  }
}
