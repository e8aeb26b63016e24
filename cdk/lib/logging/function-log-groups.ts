import { CfnResource, RemovalPolicy, Tokenization } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/**
 * Gives every Lambda function under `scope` that has no log group of its own
 * (the kubectl provider, custom-resource framework and custom-resource
 * provider functions aws-cdk-lib creates) one with the configured retention;
 * otherwise Lambda would create `/aws/lambda/<name>` on first run with logs
 * kept forever. Where aws-cdk-lib already made a group for the function (the
 * `@aws-cdk/aws-lambda:useCdkManagedLogGroup` flag), that one is used.
 * Call once, after every construct exists.
 */
export function giveEveryFunctionALogGroup(scope: IConstruct, retention: logs.RetentionDays): void {
  for (const child of scope.node.findAll()) {
    if (child instanceof lambda.CfnFunction) {
      const existing = child.loggingConfig;
      if (Tokenization.isResolvable(existing) || existing?.logGroup !== undefined) continue;
      const parent = child.node.scope;
      if (parent === undefined) continue;
      const logGroup = adoptLibraryLogGroup(parent, retention) ?? explicitLogGroup(parent, retention);
      // Keeps the library's log format and level, adds the destination.
      child.loggingConfig = { ...existing, logGroup: logGroup.logGroupName };
    } else if (child instanceof CfnResource && child.cfnResourceType === 'AWS::Lambda::Function') {
      // A CustomResourceProvider's handler (e.g. the VPC's default security
      // group restriction) is a plain CfnResource with no LoggingConfig.
      const parent = child.node.scope;
      if (parent === undefined) continue;
      child.addPropertyOverride('LoggingConfig.LogGroup', explicitLogGroup(parent, retention).logGroupName);
    }
  }
}

function explicitLogGroup(parent: IConstruct, retention: logs.RetentionDays): logs.LogGroup {
  return new logs.LogGroup(parent, 'ExplicitLogGroup', { retention, removalPolicy: RemovalPolicy.DESTROY });
}

/**
 * The group aws-cdk-lib creates beside a function under the
 * useCdkManagedLogGroup flag, made like ours: our retention instead of two
 * years, deleted with the stack, and a generated name instead of
 * `/aws/lambda/<function name>`. That name made the group depend on the
 * function, so it could be created only after the function, and a first
 * invocation in between would make Lambda create the group first and the
 * stack fail; named in LoggingConfig, it is created before the function.
 */
function adoptLibraryLogGroup(parent: IConstruct, retention: logs.RetentionDays): logs.LogGroup | undefined {
  const found = parent.node.tryFindChild('LogGroup');
  const resource = found instanceof logs.LogGroup ? found.node.defaultChild : undefined;
  if (!(found instanceof logs.LogGroup) || !(resource instanceof logs.CfnLogGroup)) return undefined;
  resource.retentionInDays = retention;
  resource.logGroupName = undefined;
  resource.applyRemovalPolicy(RemovalPolicy.DESTROY);
  return found;
}
