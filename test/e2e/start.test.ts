// `npm start` as a user runs it: a child process that brings up its own
// control plane, moto and Lambdas, runs the demo headless and exits. The
// assertions read the demo's tables (what it read back from the cluster), not
// only its own verdict, and then look for anything left behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { nodeTieKey } from '../../lambdas/extender/extender-scores';
import { typescriptProgramArgs } from '../../local/common/typescript-program';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = join(REPO, 'local', 'start', 'cli.ts');
/** `npm start`'s program as one node process: a signal to its group reaches it once, and nothing in between kills it early. */
const START = { command: process.execPath, args: typescriptProgramArgs(ENTRY) };

/** A run with the demo, or one stopped by Ctrl-C, takes minutes on a busy machine: each is killed (its whole process group) after this long… */
const RUN_KILL_MS = 240_000;
/** …and its test times out only after that, so a run that hangs fails with its output, not with vitest's timeout. */
const RUN_TEST_TIMEOUT_MS = RUN_KILL_MS + 60_000;
/** A run that must stop before starting anything. */
const REJECTED_KILL_MS = 60_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The child's environment: no colour, and its own moto_server (not a shared MOTO_URL). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  delete env.MOTO_URL;
  return env;
}

/** Process groups started by the current test: each child leads one (as a command run from a terminal does). */
const groups: number[] = [];

/** Kills the whole process group of a child (its control plane, moto…), whatever is left of it. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Nothing is left of that group.
  }
}

// A run that failed or timed out must not leave a control plane running into the next test files.
afterEach(() => {
  for (const pid of groups.splice(0)) killGroup(pid);
});

/**
 * Runs a command as the leader of a new process group. `done` resolves on
 * 'close' (not 'exit': the last output may still be unread then) with all
 * the output; after `timeoutMs` the whole group is killed.
 */
function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs: number; onStdout?: (all: string) => void },
): { done: Promise<Run>; pid: number; closeStdout(): void } {
  const child = spawn(command, args, { cwd: REPO, env: options.env ?? childEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${command} did not start`);
  groups.push(pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onStdout?.(stdout);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => killGroup(pid), options.timeoutMs);
  const done = new Promise<Run>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { done, pid, closeStdout: () => child.stdout.destroy() };
}

/**
 * Starts `npm start -- --no-demo` in its own process group and resolves once
 * it says it is running (or with its output, if it ended first).
 */
async function runUntilRunning(): Promise<{ pid: number; stdout: () => string; done: Promise<Run>; closeStdout(): void; running: boolean }> {
  let stdout = '';
  let announce: (running: boolean) => void = () => undefined;
  const announced = new Promise<boolean>((resolve) => (announce = resolve));
  const started = run(START.command, [...START.args, '--no-demo'], {
    timeoutMs: RUN_KILL_MS,
    onStdout: (all) => {
      stdout = all;
      if (all.includes('Ctrl-C stops everything')) announce(true);
    },
  });
  void started.done.then(() => announce(false));
  const running = await announced;
  return { ...started, stdout: () => stdout, running };
}

/** Where the run kept its control plane and which moto port it used, from its own output. */
function runLocations(stdout: string): { workDir: string; motoPort: string } {
  const workDir = /control plane in (\S+)\)/.exec(stdout)?.[1];
  const motoPort = /moto_server ready at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
  if (!workDir || !motoPort) throw new Error(`the output does not say where the control plane and moto ran:\n${stdout}`);
  return { workDir, motoPort };
}

/** Processes still running that belong to that run: anything using its work dir, or its moto_server. */
function leftovers({ workDir, motoPort }: { workDir: string; motoPort: string }): string[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  if (ps.status !== 0) throw new Error(`ps failed: ${ps.stderr}`);
  return ps.stdout
    .split('\n')
    .filter((line) => line.includes(workDir) || new RegExp(`moto_server .*-p ${motoPort}(\\s|$)`).test(line));
}

/** Rows of the table that follows the section whose title contains `title`. */
function tableAfter(stdout: string, title: string): string[][] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('== ') && l.includes(title));
  if (start === -1) throw new Error(`no section "${title}" in the output:\n${stdout}`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('== ')) break;
    const isRow = line.startsWith('  ') && !line.startsWith('   ');
    if (!isRow) {
      if (inTable) break;
      continue;
    }
    if (!inTable) {
      inTable = true; // the header
      continue;
    }
    rows.push(line.trim().split(/\s{2,}/));
  }
  return rows;
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A file with this content in a fresh temp dir (removed after the file's tests). */
function tempFile(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'start-test-'));
  tempDirs.push(dir);
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** A run that must stop before starting anything: the exit code and the message are the point. */
async function runRejected(args: string[]): Promise<Run> {
  const result = await run(START.command, [...START.args, ...args], { timeoutMs: REJECTED_KILL_MS }).done;
  expect(result.stdout).not.toContain('moto_server ready');
  return result;
}

describe('npm start -- --exit-after-demo', () => {
  it('labels the nodes, places GPU pods by model and memory, rejects impossible ones with the extender reason, scales down by deletion cost, and leaves nothing behind', async () => {
    const { done } = run('npm', ['start', '--', '--exit-after-demo'], { timeoutMs: RUN_KILL_MS });
    const result = await done;
    const { stdout } = result;
    expect(result.stderr, stdout).not.toContain('npm start failed');
    expect(result.code, `${stdout}\n${result.stderr}`).toBe(0);

    // Nodes: the labels the labeler wrote, as the demo read them back (instance-type facts from DESIGN.md).
    const nodes = new Map(tableAfter(stdout, 'Nodes:').map((r) => [r[0], r]));
    expect(nodes.size).toBe(12);
    const expectedLabels: Record<string, string> = {
      'p5.48xlarge': '8 × H100, 81920 MiB each',
      'p4d.24xlarge': '8 × A100, 40960 MiB each',
      'p4de.24xlarge': '8 × A100, 81920 MiB each',
      'g5.12xlarge': '4 × A10G, 22888 MiB each',
      'g5.xlarge': '1 × A10G, 22888 MiB each',
      'g6.xlarge': '1 × L4, 22888 MiB each',
      'g6e.xlarge': '1 × L40S, 45776 MiB each',
      'g4dn.12xlarge': '4 × T4, 16384 MiB each',
      'p3dn.24xlarge': '8 × V100, 32768 MiB each',
    };
    for (const [id, row] of nodes) {
      const [, , instanceType = '', , labels, labeler = ''] = row;
      expect(labels, `node ${id} (${instanceType})`).toBe(expectedLabels[instanceType]);
      expect(labeler, `node ${id}`).toMatch(/^labeled/);
    }

    // GPU jobs: where each landed.
    const jobs = new Map(tableAfter(stdout, 'GPU jobs').map((r) => [r[0], r[2]]));
    expect(jobs.get('pretrain-h100')).toBe('→ h100');
    expect(jobs.get('train-a100-80g')).toBe('→ a100-80g');
    expect(['→ a100-busy', '→ a100-idle', '→ a100-80g']).toContain(jobs.get('finetune-a100'));
    expect(['→ a10g-a', '→ a10g-b']).toContain(jobs.get('infer-a10g'));
    // The two 1-GPU A10G nodes score alike: the table calls it a tie, which the extender decides by its stable node
    // order (nodeTieKey of the Kubernetes names), so the job lands on the same one of them as every other run would.
    const why = new Map(tableAfter(stdout, 'GPU jobs').map((r) => [r[0], r[3] ?? '']));
    expect(why.get('infer-a10g')).toMatch(/; tie with a10g-[ab] \(equal scores\): the extender gives the top level to one of them by a stable node order/);
    const a10gNames = ['a10g-a', 'a10g-b'].map((id) => nodes.get(id)?.[1] ?? '');
    const preferred = a10gNames[nodeTieKey(a10gNames[0] ?? '') <= nodeTieKey(a10gNames[1] ?? '') ? 0 : 1];
    expect(jobs.get('infer-a10g')).toBe(`→ ${preferred === a10gNames[0] ? 'a10g-a' : 'a10g-b'}`);
    expect(why.get('pretrain-h100')).not.toContain('tie');
    // Published 85 %, written 80: the rounding is explained, and the ids are mapped to node names once.
    expect(stdout).toMatch(/a100-busy +85 % +gpu\.nvidia\.com\/utilization=80 +85 rounded down to a multiple of 10 \(UTILIZATION_BUCKET_SIZE\)/);
    expect(stdout).toContain('the label demo.gpu-scheduling/id carries the ID');
    expect(jobs.get('infer-l4')).toBe('→ l4');
    expect(jobs.get('batch-t4')).toBe('→ t4-x4');
    expect(jobs.get('pretrain-8xh100')).toBe('Pending');
    expect(jobs.get('a100-160g')).toBe('Pending');
    // The FailedScheduling events as kubectl describe pod shows them, each reason marked with who gave it.
    // The scheduler counts GPUs itself (ignoredByScheduler: false): the H100 node with 4 free never reaches the extender.
    expect(stdout).toMatch(/pretrain-8xh100: FailedScheduling[^\n]*\n(?: {6}[^\n]*\n)*? {8}1 × GPU model mismatch: pod wants H100, node has A100 {2}\(extender\)\n/);
    expect(stdout).toMatch(/pretrain-8xh100: FailedScheduling[^\n]*\n(?: {6}[^\n]*\n)*? {8}\d+ × Insufficient nvidia\.com\/gpu {2}\(kube-scheduler\)\n/);
    expect(stdout).toMatch(/a100-160g: FailedScheduling[^\n]*\n(?: {6}[^\n]*\n)*? {8}\d+ × Not enough GPU memory: pod wants 163840 MiB per GPU, node has 40960 MiB {2}\(extender\)\n/);
    expect(stdout).toContain('pretrain-8xh100 stayed Pending: "Insufficient nvidia.com/gpu" (kube-scheduler)');

    // Deletion costs written, then the scale-down removed the three cheapest pods.
    const costs = tableAfter(stdout, 'Service web');
    expect(costs).toHaveLength(6);
    const scaleDown = tableAfter(stdout, 'Scale-down');
    const removed = scaleDown.filter((r) => r[2] === 'removed').map((r) => Number(r[1]));
    const kept = scaleDown.filter((r) => r[2] === 'kept').map((r) => Number(r[1]));
    expect(removed).toHaveLength(3);
    expect(kept).toHaveLength(3);
    // The scenario's three busy pods cost 500, 350 and 250; the idle ones 0.
    expect([...kept].sort((a, b) => a - b)).toEqual([250, 350, 500]);
    expect(removed).toEqual([0, 0, 0]);

    // The outcome from the live cluster: one row per GPU model and the total, which adds up.
    const outcome = tableAfter(stdout, 'Outcome: GPUs allocated');
    const total = outcome.find((r) => r[0] === 'all');
    expect(outcome.map((r) => r[0])).toEqual(expect.arrayContaining(['A100', 'H100', 'A10G', 'all']));
    const gpus = Number(total?.[2]);
    const allocated = Number(/^([\d.]+) /.exec(total?.[3] ?? '')?.[1]);
    expect(gpus).toBe(outcome.filter((r) => r[0] !== 'all').reduce((sum, r) => sum + Number(r[2]), 0));
    expect(allocated).toBeGreaterThan(0);
    expect(Number(total?.[4])).toBeCloseTo(gpus - allocated, 2);
    expect(stdout).toMatch(/GPU pods pending for gpu-scheduler: \d+, the oldest for \d+ s/);

    // The what-if report of the same cluster: every node, and the jobs that stayed pending with why.
    const reportPath = /what-if report of this cluster \(.*\): (\S+\.html)$/m.exec(stdout)?.[1];
    expect(reportPath, stdout).toBeDefined();
    const report = readFileSync(reportPath ?? '', 'utf8');
    expect(report.match(/ data-node="/g)?.length).toBeGreaterThanOrEqual(12);
    for (const job of ['pretrain-8xh100', 'a100-160g']) expect(report).toMatch(new RegExp(`data-pod="[^"]+/${job}" data-state="unschedulable"`));

    // Scale from zero: the node Karpenter launched is an EC2 instance the labeler labelled from its running event.
    expect(stdout).toMatch(/the labeler, woken by the instance's EC2 running event \(aws:\/\/\/us-east-1[a-z]\/i-[0-9a-f]+\), labelled it \d+ × \S+, \d+ MiB each beside Karpenter's instance-gpu-name=\S+/);
    expect(stdout).toContain('demo passed');
    expect(stdout).not.toContain('✗');

    // Torn down: no process of that run left, its temp dir gone.
    const where = runLocations(stdout);
    expect(leftovers(where)).toEqual([]);
    expect(existsSync(where.workDir)).toBe(false);
  }, RUN_TEST_TIMEOUT_MS);
});

describe('npm start on Ctrl-C', () => {
  it('keeps running until SIGINT reaches its process group, then stops every process and removes its temp files', async () => {
    const started = await runUntilRunning();
    expect(started.running, started.stdout()).toBe(true);
    // Its own process group, as in a terminal: Ctrl-C signals every process in it.
    process.kill(-started.pid, 'SIGINT');
    const result = await started.done;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('Running. Ctrl-C stops everything.');
    expect(result.stdout).toContain('stopped: every process ended, temporary files removed');
    const where = runLocations(result.stdout);
    expect(leftovers(where)).toEqual([]);
    expect(existsSync(where.workDir)).toBe(false);
  }, RUN_TEST_TIMEOUT_MS);

  it('still tears down when stdout is a pipe whose reader has gone (npm start | tee, then Ctrl-C)', async () => {
    const started = await runUntilRunning();
    expect(started.running, started.stdout()).toBe(true);
    const where = runLocations(started.stdout());
    // Ctrl-C ends tee too: its read end of the pipe closes before npm start writes "stopping".
    started.closeStdout();
    process.kill(-started.pid, 'SIGINT');
    const result = await started.done;
    expect(result.code, result.stderr).toBe(0);
    // With stdout gone, the teardown's lines go to stderr (still the terminal under `| tee`).
    expect(result.stderr).toContain('stopped: every process ended, temporary files removed');
    expect(leftovers(where)).toEqual([]);
    expect(existsSync(where.workDir)).toBe(false);
  }, RUN_TEST_TIMEOUT_MS);
});

describe('npm start fails fast', () => {
  it('rejects a scenario with an unknown key, naming the key, before starting anything', async () => {
    const file = tempFile('bad.yaml', 'nodes:\n  - { instanceType: p4d.24xlarge, zonee: us-east-1a }\n');
    const result = await runRejected(['--exit-after-demo', '--scenario', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`invalid scenario ${file}: nodes[0].zonee: unknown key`);
  });

  it('rejects an invalid CDK config file with the config loader\'s message', async () => {
    const file = tempFile('config.yaml', 'clusterName: "not a valid name!"\n');
    const result = await runRejected(['--no-demo', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: invalid configuration: clusterName: must be an EKS cluster name`);
  });

  it('names moto and how to install it when moto_server is not on PATH', async () => {
    // Node stays reachable; Python's shims (and moto_server with them) do not.
    const path = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
    const moto = spawnSync('sh', ['-c', 'command -v moto_server'], { env: { PATH: path }, encoding: 'utf8' });
    expect(moto.stdout.trim(), 'this test needs a PATH without moto_server').toBe('');
    const result = await run(START.command, [...START.args, '--no-demo'], { env: childEnv({ PATH: path }), timeoutMs: REJECTED_KILL_MS }).done;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("moto[server]");
    expect(result.stdout).not.toContain('moto_server ready');
  });
});
