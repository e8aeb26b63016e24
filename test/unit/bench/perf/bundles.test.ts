import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { contributors, packageOf } from '../../../../bench/perf/bundles';

describe('packageOf', () => {
  it('names scoped and plain packages, nested node_modules by the innermost one', () => {
    expect(packageOf('node_modules/@kubernetes/client-node/dist/gen/models/V1Pod.js')).toBe('@kubernetes/client-node');
    expect(packageOf('node_modules/tr46/lib/mappingTable.json')).toBe('tr46');
    expect(packageOf('node_modules/@smithy/core/node_modules/@smithy/types/dist-es/index.js')).toBe('@smithy/types');
  });

  it('calls the project sources "our code"', () => {
    expect(packageOf('lambdas/extender/router.ts')).toBe('our code');
  });
});

describe('contributors', () => {
  it('sums bytes per package for one output, biggest first', () => {
    const metafile = {
      inputs: {},
      outputs: {
        'out/index.mjs': {
          bytes: 0,
          imports: [],
          exports: [],
          inputs: {
            'node_modules/tr46/index.js': { bytesInOutput: 10 },
            'node_modules/tr46/lib/mappingTable.json': { bytesInOutput: 300 },
            'node_modules/@kubernetes/client-node/dist/index.js': { bytesInOutput: 200 },
            'lambdas/extender/router.ts': { bytesInOutput: 50 },
          },
        },
      },
    } as unknown as Metafile;
    expect(contributors(metafile, 'out/index.mjs')).toEqual([
      { name: 'tr46', bytes: 310 },
      { name: '@kubernetes/client-node', bytes: 200 },
      { name: 'our code', bytes: 50 },
    ]);
    expect(() => contributors(metafile, 'missing.mjs')).toThrow(/no output missing\.mjs/);
  });
});
