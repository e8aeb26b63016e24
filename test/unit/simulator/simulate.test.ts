import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSimulatorProfile } from '../../../lambdas/scheduling/profiles';
import { InputError, parseKubeList } from '../../../simulator/kube-list-file';
import { simulate } from '../../../simulator/simulate';
import { parseSimulatorConfig } from '../../../simulator/simulator-config';

// Each test starts node processes (tsx, esbuild, workers); a loaded machine makes that slow.
const SPAWN_TIMEOUT_MS = 180_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => path.join(here, 'fixtures', name);
const read = (name: string) => readFileSync(fixture(name), 'utf8');
const cli = path.resolve(here, '../../../simulator/cli.ts');

function runCli(args: readonly string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('simulate (library placement of pending pods)', () => {
  const nodes = parseKubeList(read('nodes.json'), 'nodes.json', 'Node');
  const pods = parseKubeList(read('pods.yaml'), 'pods.yaml', 'Pod');

  it('places pending pods in order, counting bound pods as load, and explains the unschedulable', () => {
    const result = simulate(nodes, pods, createSimulatorProfile());
    expect(result.alreadyBound).toBe(1);
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([
      // 2 A100s: the partly used node keeps the empty one whole.
      ['ml/train', 'a100-b'],
      ['ml/infer', 't4'],
      ['default/web', expect.any(String)],
    ]);
    expect(result.placed[0]?.devices).toHaveLength(2);
    expect(result.unschedulable).toEqual([
      {
        pod: 'ml/huge',
        summary: '0/3 nodes are available: 3 InsufficientGpus.',
        reasons: [
          { node: 'a100-a', code: 'InsufficientGpus', message: 'Not enough GPUs: requested 16, free 8' },
          { node: 'a100-b', code: 'InsufficientGpus', message: 'Not enough GPUs: requested 16, free 1' },
          { node: 't4', code: 'InsufficientGpus', message: 'Not enough GPUs: requested 16, free 3' },
        ],
      },
    ]);
    expect(result.nodes.find((n) => n.node === 'a100-b')).toEqual({ node: 'a100-b', gpus: 8, freeWholeGpus: 1, pods: 2 });
  });

  it('reads YAML documents and JSON lists alike; CPU fit and bad annotations are reasons too', () => {
    const yamlNodes = parseKubeList(read('nodes.yaml'), 'nodes.yaml', 'Node');
    const jsonPods = parseKubeList(read('pods.json'), 'pods.json', 'Pod');
    const result = simulate(yamlNodes, jsonPods, createSimulatorProfile());
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([['default/cpu-heavy', 'big']]);
    expect(result.unschedulable[0]?.pod).toBe('default/bad-memory');
    expect(result.unschedulable[0]?.reasons[0]?.message).toMatch(/Invalid pod: annotation gpu.nvidia.com\/memory="lots"/);
  });

  it('rejects inputs that are not Kubernetes lists of the expected kind', () => {
    expect(() => parseKubeList('{"items": 3}', 'x.json', 'Node')).toThrow(/"items" must be an array/);
    expect(() => parseKubeList('{"kind":"Pod","metadata":{"name":"p"}}', 'x.json', 'Node')).toThrow(/is a Pod, expected Node/);
    expect(() => parseKubeList('[{"metadata":{}}]', 'x.json', 'Node')).toThrow(/item 0 has no metadata.name/);
    expect(() => parseKubeList('{ "items": [', 'x.json', 'Node')).toThrow(InputError);
  });

  it('config files set weights and GpuScore options and reject unknown keys and bad values', () => {
    expect(parseSimulatorConfig(read('weights.yaml'), 'weights.yaml')).toEqual({
      weights: { GpuScore: 1, Fragmentation: 0 },
      gpuScore: { fitWeight: 1, utilizationWeight: 0 },
    });
    expect(() => parseSimulatorConfig('weights: {Packing: 1}', 'c.yaml')).toThrow(/unknown key "Packing"/);
    expect(() => parseSimulatorConfig('weights: {GpuScore: -1}', 'c.yaml')).toThrow(/GpuScore must be a number from 0 to 1000/);
    expect(() => parseSimulatorConfig('profile: x', 'c.yaml')).toThrow(/unknown key "profile"/);
  });
});

describe('npm run simulate (CLI)', () => {
  it('prints the placement table and per-node reasons for unschedulable pods', () => {
    const { code, stdout } = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml')]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/3 placed, 1 unschedulable, 1 already bound/);
    expect(stdout).toMatch(/ml\/train\s+a100-b/);
    expect(stdout).toMatch(/UNSCHEDULABLE ml\/huge: 0\/3 nodes are available: 3 InsufficientGpus\./);
    expect(stdout).toMatch(/ {2}t4: Not enough GPUs: requested 16, free 3/);
  }, SPAWN_TIMEOUT_MS);

  it('--explain shows each plugin\'s score on the chosen node and the runner-up, and calls ties ties', () => {
    const nodes = parseKubeList(read('nodes.json'), 'nodes.json', 'Node');
    const pods = parseKubeList(read('pods.yaml'), 'pods.yaml', 'Pod');
    const result = simulate(nodes, pods, createSimulatorProfile(), { explain: true });
    const train = result.placed.find((p) => p.pod === 'ml/train');
    // The two A100 nodes: the chosen one, with its total matching the placement score, beats the other.
    expect(train?.explanation?.best).toMatchObject({ node: 'a100-b', total: train?.score });
    expect(train?.explanation?.runnerUp?.node).toBe('a100-a');
    expect(train?.explanation?.tie).toBe(false);
    expect(train?.explanation?.margin).toBeGreaterThan(0);
    expect(Object.keys(train?.explanation?.best.plugins ?? {})).toEqual(expect.arrayContaining(['Fragmentation', 'GpuScore']));
    expect(simulate(nodes, pods, createSimulatorProfile()).placed.every((p) => p.explanation === undefined)).toBe(true);

    const { code, stdout } = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml'), '--explain']);
    expect(code).toBe(0);
    expect(stdout).toContain('WHY (each plugin');
    expect(stdout).toMatch(/ml\/train → a100-b\n\s+chosen a100-b: total [\d.]+ \(.*Fragmentation [\d.]+.*\)\n\s+runner-up a100-a: total [\d.]+ .*\n\s+margin [\d.]+ points/);
  }, SPAWN_TIMEOUT_MS);

  it('--json prints machine-readable results; --config changes the profile', () => {
    const { code, stdout } = runCli(['--nodes', fixture('nodes.yaml'), '--pods', fixture('pods.json'), '--json', '--config', fixture('weights.yaml')]);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { placed: { pod: string; node: string }[]; unschedulable: { pod: string }[] };
    expect(parsed.placed).toEqual([expect.objectContaining({ pod: 'default/cpu-heavy', node: 'big' })]);
    expect(parsed.unschedulable.map((u) => u.pod)).toEqual(['default/bad-memory']);
  }, SPAWN_TIMEOUT_MS);

  it('fails with a clear message on malformed input, a missing file and missing flags', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'simulate-'));
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"items": [');
    const bad = runCli(['--nodes', broken, '--pods', fixture('pods.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken.json: not valid JSON or YAML/);
    const missing = runCli(['--nodes', path.join(dir, 'nope.json'), '--pods', fixture('pods.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope.json/);
    const usage = runCli(['--nodes', fixture('nodes.json')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--nodes and --pods are required/);
  }, SPAWN_TIMEOUT_MS);
});
