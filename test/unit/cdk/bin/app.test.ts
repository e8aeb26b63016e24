import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// cdk.json's app command (`npx tsx cdk/bin/app.ts`), run the way the CDK CLI runs it (context in
// CDK_CONTEXT_JSON). A bad configuration must stop it before any bundling,
// with one line naming the key.
function runApp(context: Record<string, unknown>): { status: number | null; stderr: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'gpu-app-'));
  const result = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'cdk/bin/app.ts'], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
  });
  return { status: result.status, stderr: result.stderr };
}

describe('cdk/bin/app.ts', () => {
  it('fails with the key and the allowed values for a bad inline value', () => {
    const { status, stderr } = runApp({ gpuScheduling: { scheduler: { replicas: 9 } } });
    expect(status).toBe(1);
    expect(stderr.trim()).toBe('invalid configuration: scheduler.replicas: must be an integer from 1 to 5, got 9');
  }, 120_000);

  it('reads the config file named by the configFile context key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-app-config-'));
    const file = join(dir, 'gpu.yaml');
    writeFileSync(file, 'cluster:\n  gpuNodeGroups:\n    - instanceTypes: [G5.XLARGE]\n');
    const { status, stderr } = runApp({ configFile: file });
    expect(status).toBe(1);
    expect(stderr).toContain('invalid configuration: cluster.gpuNodeGroups[0].instanceTypes[0]: must be an EC2 instance type with NVIDIA GPUs');
  }, 120_000);
});
