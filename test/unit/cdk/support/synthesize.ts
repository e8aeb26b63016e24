import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import type { AppConfig } from '../../../../cdk/app-config/app-config';
import { buildApp } from '../../../../cdk/lib/build-app';
import type { GpuSchedulingStack } from '../../../../cdk/lib/gpu-scheduling-stack';
import { renderCfnString } from '../../../../cdk/tools/cfn-string';
import { cdkJsonContext, WITHOUT_BUNDLING } from './cdk-json';

export interface Synthesized {
  readonly config: AppConfig;
  readonly stack: GpuSchedulingStack;
  readonly template: Template;
  /** The raw template JSON, for walking resources the assertions API cannot express. */
  readonly json: CloudFormationTemplate;
  readonly outdir: string;
  readonly templateFiles: string[];
}

export interface CloudFormationTemplate {
  readonly Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: string[] | string }>;
  readonly Outputs?: Record<string, { Value: unknown }>;
}

export interface SynthesizeOptions {
  /**
   * Bundle the Lambdas with esbuild, as `cdk synth` does. Off, the CDK skips
   * bundling (WITHOUT_BUNDLING): synth takes about 40 % of the time. The
   * functions and their build are the same in every configuration, so one
   * test that reads the bundles (the new-cluster stack's) covers them.
   * @default false
   */
  readonly bundle?: boolean;
}

/**
 * Synthesizes the app as `cdk synth` does (cdk.json's feature flags, cdk-nag
 * plugin: an unacknowledged finding makes synth throw; esbuild bundling when
 * asked). Slow: call once per test file.
 */
export function synthesize(rawConfig: unknown, options: SynthesizeOptions = {}): Synthesized {
  const config = parseAppConfig(rawConfig);
  const outdir = mkdtempSync(join(tmpdir(), 'gpu-cdk-'));
  const context = options.bundle === true ? cdkJsonContext() : { ...cdkJsonContext(), ...WITHOUT_BUNDLING };
  const app = new App({ outdir, context });
  const stack = buildApp(app, config);
  app.synth();
  const templateFiles = readdirSync(outdir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => join(outdir, name));
  const json = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as CloudFormationTemplate;
  return { config, stack, template: Template.fromJSON(json as unknown as Record<string, unknown>), json, outdir, templateFiles };
}

export function resourcesOfType(json: CloudFormationTemplate, type: string): [string, Record<string, unknown>][] {
  return Object.entries(json.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id, resource]) => [id, resource.Properties ?? {}]);
}

// Shared with cdk/tools (the dashboard layout picture reads the synthesized body the same way).
export { renderCfnString };

/** The Kubernetes objects of every Custom::AWSCDK-EKS-KubernetesResource in the template. */
export function kubernetesObjects(json: CloudFormationTemplate): Record<string, unknown>[] {
  return resourcesOfType(json, 'Custom::AWSCDK-EKS-KubernetesResource').flatMap(
    ([, properties]) => JSON.parse(renderCfnString(properties.Manifest)) as Record<string, unknown>[],
  );
}

export function findObject(objects: Record<string, unknown>[], kind: string, name: string): Record<string, unknown> {
  const found = objects.find((object) => object.kind === kind && (object.metadata as { name?: string } | undefined)?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${String(o.kind)}/${String((o.metadata as { name?: string }).name)}`).join(', ')}`);
  return found;
}
