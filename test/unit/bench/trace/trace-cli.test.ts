import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTraceResults } from '../../../../charts/trace-results';
import { TRACE_CLI } from '../../../../bench/trace/trace-cli';

// Each test starts node processes (tsx, esbuild, workers); a loaded machine makes that slow.
const SPAWN_TIMEOUT_MS = 180_000;
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bench/trace/trace-cli.ts');

function run(args: readonly string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A tiny synthetic trace in the openb format (not the real data). */
function tinyTrace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-trace-'));
  writeFileSync(
    path.join(dir, 'openb_node_list_gpu_node.csv'),
    'sn,cpu_milli,memory_mib,gpu,model\n' + Array.from({ length: 10 }, (_, i) => `n${i},32000,131072,${[2, 4, 8][i % 3]},${i % 2 ? 'T4' : 'P100'}`).join('\n'),
  );
  writeFileSync(
    path.join(dir, 'openb_pod_list_default.csv'),
    'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n' +
      Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')},${1000 + (i % 4) * 2000},2048,${i % 7 === 0 ? 2 : 1},${i % 7 === 0 ? 1000 : [1000, 460, 230][i % 3]},${i % 5 === 0 ? 'T4' : ''},LS`).join('\n'),
  );
  writeFileSync(path.join(dir, 'published_alloc_summary.csv'), 'workload,policy,seeds,alloc_pct_at_arrived_100,alloc_pct_at_arrived_130\nopenb_pod_list_default,BestFit,10,90.00,91.00\n');
  return dir;
}

describe('npm run bench:trace (CLI)', () => {
  it('--json prints {policy: {alloc100, alloc130}} and writes the SVG plot and its figures beside it', () => {
    const dir = tinyTrace();
    const plot = path.join(dir, 'plot.svg');
    const { code, stdout, stderr } = run(['--data-dir', dir, '--seeds', '2', '--policy', 'bestfit,random', '--json', '--plot', plot, '--workers', '1']);
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout) as Record<string, { alloc100: number; alloc130: number }>;
    expect(Object.keys(json)).toEqual(['bestfit', 'random']);
    for (const v of Object.values(json)) {
      expect(v.alloc130).toBeGreaterThan(0);
      expect(v.alloc130).toBeLessThanOrEqual(100);
    }
    expect(stderr).toContain(`plot: ${plot} (figures: ${path.join(dir, 'plot.json')})`);
    const svg = readFileSync(plot, 'utf8');
    expect(svg).toMatch(/^<svg [^>]*>[\s\S]*class="mark-line[\s\S]*BestFit [\d.]+<\/text>[\s\S]*<\/svg>\n$/);
    expect(svg).toContain('paper BestFit 91.00');
    const figures = parseTraceResults(readFileSync(path.join(dir, 'plot.json'), 'utf8'), 'plot.json');
    expect(figures.policies.map((p) => [p.policy, p.alloc130])).toEqual(Object.entries(json).map(([policy, v]) => [policy, v.alloc130]));
    expect(figures).toMatchObject({ workload: 'openb_pod_list_default', seeds: 2, published: [{ policy: 'BestFit', alloc100: 90, alloc130: 91 }] });
    expect(figures.command).toBe('npm run bench:trace -- --seeds 2 --policy bestfit,random');
  }, SPAWN_TIMEOUT_MS);

  it('prints a table beside the published values', () => {
    const dir = tinyTrace();
    const { code, stdout } = run(['--data-dir', dir, '--seeds', '1', '--policy', 'bestfit', '--plot', path.join(dir, 'p.svg')]);
    expect(code).toBe(0);
    // One seed: no spread (a dash).
    expect(stdout).toMatch(/bestfit\s+1\s+[\d.]+\s+[\d.]+\s+-\s+BestFit\s+90\.00\s+91\.00/);
  }, SPAWN_TIMEOUT_MS);

  it('runs several workloads in one command, including a multi-GPU list without gpu_spec (the public multigpu format)', () => {
    const dir = tinyTrace();
    // The columns of openb_pod_list_multigpu*.csv: no gpu_spec, so every pod takes any model. 80 whole GPUs asked of
    // 44: more than the 130 % target, so the list goes through the trimming branch (1-GPU pods land it on 57 = 130 %).
    writeFileSync(
      path.join(dir, 'openb_pod_list_multigpu50.csv'),
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli\n' + Array.from({ length: 80 }, (_, i) => `m${String(i).padStart(2, '0')},2000,8192,1,1000`).join('\n'),
    );
    const { code, stdout, stderr } = run(['--data-dir', dir, '--pods', 'default,multigpu50', '--seeds', '1', '--policy', 'bestfit', '--json', '--workers', '1']);
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout) as Record<string, Record<string, { alloc130: number }>>;
    expect(Object.keys(json)).toEqual(['openb_pod_list_default', 'openb_pod_list_multigpu50']);
    expect(json.openb_pod_list_multigpu50?.bestfit?.alloc130).toBeGreaterThan(0);
    expect(stderr).toContain('openb_pod_list_multigpu50 bestfit seed 42');
    expect(run(['--data-dir', dir, '--pods', 'default,multigpu50', '--plot', 'x.svg']).stderr).toMatch(/--plot takes one file/);
  }, SPAWN_TIMEOUT_MS);

  it('--ablation runs extender and every ablation; gen- names replay lookalikes generated from the shared lists', () => {
    const dir = tinyTrace();
    // 40 %: on this 46-GPU fixture the arrivals stop within half a percent of 130 % (a 2-GPU pod is 4 % of it; lower
    // shares of them can stop short of the 130 % checkpoint, which leaves the ablation's paired differences empty).
    const { code, stdout, stderr } = run(['--data-dir', dir, '--seeds', '1', '--ablation', '--pods', 'gen-multigpu40', '--workers', '1']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('workload gen-multigpu40');
    expect(stdout).toMatch(/^extender-fgd-view\s+Fragmentation lookahead 0/m);
    expect(stdout).toMatch(/^extender-random-ties\s+kube-scheduler's random pick[^\n]+[+-]\d+\.\d\d$/m);
    // The variant is written where it can be read again; a share the source cannot give is a usage error.
    expect(readFileSync(path.join(path.dirname(cli), '../../.bench-out/trace/generated/gen-multigpu40.csv'), 'utf8')).toMatch(/^name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n/);
    expect(run(['--data-dir', dir, '--pods', 'gen-cpu200']).stderr).toMatch(/the source list has no cpu task to resample/);
    expect(run(['--data-dir', dir, '--pods', 'gen-gpushare120']).stderr).toMatch(/gen-gpushare120: gpushare takes 0\.\.100 % of the GPU requested/);
  }, SPAWN_TIMEOUT_MS);

  it('fails clearly when the trace is missing or a flag is wrong', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'bench-empty-'));
    const missing = run(['--data-dir', empty]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`trace node list not found: ${path.join(empty, 'openb_node_list_gpu_node.csv')}`);
    expect(existsSync(path.join(empty, 'plot.svg'))).toBe(false);
    expect(run(['--policy', 'magic']).stderr).toMatch(/unknown policy magic/);
    expect(run(['--seeds', '0']).stderr).toMatch(/--seeds must be a positive integer/);
    expect(run(['--frobnicate']).code).toBe(2);
  }, SPAWN_TIMEOUT_MS);

  it('looks for the trace inside the repository by default (a git-ignored folder), never beside it', () => {
    const description = TRACE_CLI.options['data-dir'].description;
    expect(description).toContain('.bench-data/openb in the repository, git-ignored');
    expect(description).not.toMatch(/\.\.\//);
    expect(readFileSync(path.resolve(path.dirname(cli), '../../.gitignore'), 'utf8').split('\n')).toContain('.bench-data/');
  });
});
