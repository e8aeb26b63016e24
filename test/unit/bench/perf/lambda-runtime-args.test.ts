import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lambdaRuntimeNodeArgs } from '../../../../bench/perf/lambda-runtime-args';

function heapLimitMiB(args: readonly string[], nodeOptions: string): number {
  const run = spawnSync(process.execPath, [...args, '-e', 'process.stdout.write(String(require("node:v8").getHeapStatistics().heap_size_limit))'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions },
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout) / 2 ** 20;
}

describe('lambdaRuntimeNodeArgs', () => {
  it('sizes the heap as the runtime bootstrap does: a tenth young (two semispaces), the rest old', () => {
    expect(lambdaRuntimeNodeArgs(1769)).toEqual(['--expose-gc', '--max-http-header-size', '81920', '--max-semi-space-size=88', '--max-old-space-size=1593']);
    expect(lambdaRuntimeNodeArgs(128)).toEqual(['--expose-gc', '--max-http-header-size', '81920', '--max-semi-space-size=6', '--max-old-space-size=116']);
    expect(lambdaRuntimeNodeArgs(10240).slice(-2)).toEqual(['--max-semi-space-size=512', '--max-old-space-size=9216']);
  });

  it('rejects a memory size Lambda does not offer', () => {
    for (const memory of [127, 10241, 1536.5, Number.NaN]) expect(() => lambdaRuntimeNodeArgs(memory)).toThrow(/128\.\.10240 MiB/);
  });

  it('wins over a NODE_OPTIONS heap flag of the same name, as the runtime command line does', () => {
    const args = lambdaRuntimeNodeArgs(1769);
    const withBoth = heapLimitMiB(args, '--max-semi-space-size=64');
    expect(withBoth).toBe(heapLimitMiB(args, ''));
    expect(withBoth).not.toBe(heapLimitMiB(['--max-old-space-size=1593'], '--max-semi-space-size=64'));
  });
});
