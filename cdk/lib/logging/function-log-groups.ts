import { RemovalPolicy, Tokenization } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/**
 * Gives every Lambda function under `scope` that has no log group of its own
 * (the kubectl provider and custom-resource framework functions aws-cdk-lib
 * creates) an explicit one with the configured retention; otherwise Lambda
 * would create `/aws/lambda/<name>` on first run with logs kept forever.
 * Call once, after every construct exists.
 */
export function giveEveryFunctionALogGroup(scope: IConstruct, retention: logs.RetentionDays): void {
  for (const child of scope.node.findAll()) {
    if (!(child instanceof lambda.CfnFunction)) continue;
    const existing = child.loggingConfig;
    if (Tokenization.isResolvable(existing) || existing?.logGroup !== undefined) continue;
    const parent = child.node.scope;
    if (parent === undefined) continue;
    const logGroup = new logs.LogGroup(parent, 'ExplicitLogGroup', { retention, removalPolicy: RemovalPolicy.DESTROY });
    // Keeps the library's log format and level, adds the destination.
    child.loggingConfig = { ...existing, logGroup: logGroup.logGroupName };
  }
}
