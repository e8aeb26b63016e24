import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * The `context` of cdk.json (the feature flags): what the CDK CLI gives the
 * app, so a test's synth builds the template `cdk synth` builds.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return { ...cdkJson.context };
}
