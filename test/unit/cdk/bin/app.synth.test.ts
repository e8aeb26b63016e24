import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext, WITHOUT_BUNDLING } from '../support/cdk-json';

const require = createRequire(import.meta.url);

// `cdk synth` as the CLI runs it: cdk.json's context in CDK_CONTEXT_JSON, the
// app's output in CDK_OUTDIR. The CLI prints the app's own output, the
// warnings and errors recorded in the assembly, and a line per feature flag
// left at a value other than the recommended one; all must be quiet.
interface MetadataEntry {
  readonly type: string;
  readonly data?: unknown;
}

interface FeatureFlag {
  readonly recommendedValue?: unknown;
  readonly userValue?: unknown;
  readonly unconfiguredBehavesLike?: { readonly v2?: unknown };
}

interface Manifest {
  readonly artifacts: Record<string, { type: string; metadata?: Record<string, MetadataEntry[]>; properties?: { flags?: Record<string, FeatureFlag> } }>;
}

interface ValidationReport {
  readonly pluginReports?: { readonly pluginName: string; readonly violations?: { readonly ruleName: string; readonly violatingConstructs?: { readonly constructPath: string }[] }[] }[];
}

interface Synth {
  readonly status: number | null;
  readonly output: string;
  readonly manifest: Manifest;
  /** Where annotations go under @aws-cdk/core:annotationsInValidationReport, beside the cdk-nag and template checks. */
  readonly validationReport: ValidationReport;
}

function synth(context: Record<string, unknown>): Synth {
  const outdir = mkdtempSync(join(tmpdir(), 'gpu-app-synth-'));
  const result = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'cdk/bin/app.ts'], {
    encoding: 'utf8',
    timeout: 170_000,
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) return { status: result.status, output, manifest: { artifacts: {} }, validationReport: {} };
  const read = (file: string): unknown => JSON.parse(readFileSync(join(outdir, file), 'utf8'));
  return { status: result.status, output, manifest: read('manifest.json') as Manifest, validationReport: read('validation-report.json') as ValidationReport };
}

/** Warnings and errors the CLI would print from the assembly, with the construct path. */
function assemblyFindings(manifest: Manifest): string[] {
  return Object.values(manifest.artifacts).flatMap((artifact) =>
    Object.entries(artifact.metadata ?? {}).flatMap(([path, entries]) =>
      entries.filter((entry) => entry.type === 'aws:cdk:warning' || entry.type === 'aws:cdk:error').map((entry) => `${path}: ${String(entry.data)}`),
    ),
  );
}

function reportedViolations(report: ValidationReport): string[] {
  return (report.pluginReports ?? []).flatMap((plugin) =>
    (plugin.violations ?? []).map((violation) => `${plugin.pluginName} ${violation.ruleName} at ${(violation.violatingConstructs ?? []).map((c) => c.constructPath).join(', ')}`),
  );
}

/** The CLI's "feature flags are not configured" list: unset, and the default differs from the recommendation. */
function flagsNeedingAttention(manifest: Manifest): string[] {
  const flags = Object.values(manifest.artifacts).find((artifact) => artifact.type === 'cdk:feature-flag-report')?.properties?.flags ?? {};
  return Object.entries(flags)
    .filter(([, flag]) => flag.userValue === undefined && (flag.unconfiguredBehavesLike?.v2 ?? false) !== flag.recommendedValue)
    .map(([name]) => name);
}

describe('cdk synth of cdk/bin/app.ts with cdk.json', () => {
  // The default configuration is synthesized as `cdk synth` runs it, bundles
  // and all. The others skip bundling (the CDK's bundling-stacks context,
  // empty): the functions and their build do not depend on the configuration,
  // and bundling is about 60 % of a synth (32 s → 13 s on a quiet 2-core VM).
  it.each([
    ['the default configuration (new cluster)', {}],
    ['the existing-cluster example', { configFile: 'cdk/app-config/example-existing-cluster.yaml', ...WITHOUT_BUNDLING }],
  ])('%s: no deprecation warning, no annotation or validation finding, every feature flag at its recommended value', (_name, extra) => {
    const { status, output, manifest, validationReport } = synth({ ...cdkJsonContext(), ...extra });
    expect(status, output).toBe(0);
    // jsii prints "[WARNING] <api> is deprecated" when app code calls a deprecated API.
    expect(output.split('\n').filter((line) => /\[WARNING\]|deprecated/i.test(line))).toEqual([]);
    expect(assemblyFindings(manifest)).toEqual([]);
    expect(reportedViolations(validationReport)).toEqual([]);
    expect(Object.keys(manifest.artifacts)).toContain('aws-cdk-lib/feature-flag-report');
    expect(flagsNeedingAttention(manifest)).toEqual([]);
  }, 180_000);

  it('cdk.json sets exactly the flags `cdk init` writes for the installed aws-cdk-lib', () => {
    const recommended = JSON.parse(readFileSync(require.resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8')) as Record<string, unknown>;
    expect(cdkJsonContext()).toEqual(recommended);
  });

  it('the check can fail: without cdk.json the flags are reported as unconfigured', () => {
    const { status, output, manifest } = synth({ configFile: 'cdk/app-config/example-existing-cluster.yaml', ...WITHOUT_BUNDLING });
    expect(status, output).toBe(0);
    expect(flagsNeedingAttention(manifest).length).toBeGreaterThan(50);
  }, 180_000);
});
