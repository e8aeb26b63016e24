// Draws docs/dashboard-layout.svg from the dashboard of the default
// configuration, as `cdk synth` builds it (cdk.json's context, bundling,
// cdk-nag): `npx tsx cdk/tools/render-dashboard-layout.ts`. The stack test
// checks that the committed picture matches the synthesized dashboard.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { parseAppConfig } from '../app-config/parse-app-config';
import { buildApp } from '../lib/build-app';
import { renderCfnString } from './cfn-string';
import type { DashboardBody } from './dashboard-layout';
import { dashboardLayoutSvg } from './dashboard-layout';

const repoRoot = join(import.meta.dirname, '..', '..');
export const DASHBOARD_LAYOUT_SVG = join(repoRoot, 'docs', 'dashboard-layout.svg');

/** The bodies of the template's dashboards. */
export function dashboardBodies(template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> }): DashboardBody[] {
  return Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::CloudWatch::Dashboard')
    .map((resource) => JSON.parse(renderCfnString(resource.Properties?.DashboardBody)) as DashboardBody);
}

function main(): void {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const outdir = mkdtempSync(join(tmpdir(), 'gpu-dashboard-'));
  try {
    const app = new App({ outdir, context: { ...cdkJson.context } });
    const stack = buildApp(app, parseAppConfig(undefined));
    app.synth();
    const file = readdirSync(outdir).find((name) => name === `${stack.artifactId}.template.json`);
    if (file === undefined) throw new Error(`no template for ${stack.artifactId} in ${outdir}`);
    const [body, ...others] = dashboardBodies(JSON.parse(readFileSync(join(outdir, file), 'utf8')) as Parameters<typeof dashboardBodies>[0]);
    if (body === undefined || others.length > 0) throw new Error('expected exactly one dashboard');
    writeFileSync(DASHBOARD_LAYOUT_SVG, dashboardLayoutSvg(body));
    console.log(`wrote ${DASHBOARD_LAYOUT_SVG} (${body.widgets.length} widgets)`);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) main();
