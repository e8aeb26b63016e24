import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * The `context` of cdk.json (the feature flags): what the CDK CLI gives the
 * app, so a test's synth builds the template `cdk synth` builds.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return { ...cdkJson.context };
}

/**
 * Context that makes a synth skip esbuild bundling: the CDK CLI names the
 * stacks to bundle under this key; with none named, no asset is bundled and
 * the template is the same but for asset hashes.
 */
export const WITHOUT_BUNDLING: Readonly<Record<string, unknown>> = { [BUNDLING_STACKS]: [] };
