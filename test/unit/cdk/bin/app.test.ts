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

  // These used to pass validation and then stop cdk synth with a CDK stack trace.
  it('names every key an existing cluster lacks in one message, before the CDK builds anything', () => {
    const existing = { vpcId: 'vpc-0123456789abcdef0', clusterSecurityGroupId: 'sg-0123456789abcdef0' };
    const { status, stderr } = runApp({ gpuScheduling: { cluster: { mode: 'existing', existing } } });
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'invalid configuration (2 problems):',
      '  cluster.existing.availabilityZones: is required (a list of at least 2 item(s), each an availability zone name such as us-east-1a)',
      '  cluster.existing.privateSubnetIds: is required (a list of at least 2 item(s), each a subnet id such as subnet-0123456789abcdef0)',
    ]);
  }, 120_000);

  it('refuses a VPC range too small for its zones and a subnet listed twice, with the keys', () => {
    const existing = {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef0'],
      clusterSecurityGroupId: 'sg-0123456789abcdef0',
    };
    const attached = runApp({ gpuScheduling: { cluster: { mode: 'existing', existing } } });
    expect(attached.status).toBe(1);
    expect(attached.stderr.trim()).toBe('invalid configuration: cluster.existing.privateSubnetIds[1]: "subnet-0123456789abcdef0" is listed twice; each subnet is in one zone');
    const created = runApp({ gpuScheduling: { cluster: { vpcCidr: '10.0.0.0/18' } } });
    expect(created.status).toBe(1);
    expect(created.stderr.trim()).toBe('invalid configuration: cluster.vpcCidr: must hold a public /24 and a private /19 subnet per zone: 2 zones need a /17 or larger, got "10.0.0.0/18"');
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
