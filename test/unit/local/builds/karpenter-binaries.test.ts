import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinnedKarpenter } from '../../../../local/builds/karpenter-binaries';

const root = join(import.meta.dirname, '..', '..', '..', '..');

describe('pinnedKarpenter', () => {
  it("reads the Karpenter release and the Go toolchain from local/builds/go-modules/karpenter-binaries/go.mod, as .ci/run's download step does", () => {
    const pinned = pinnedKarpenter();
    expect(pinned.version).toMatch(/^v1\.\d+\.\d+$/);
    const goMod = readFileSync(join(root, 'local/builds/go-modules/karpenter-binaries/go.mod'), 'utf8');
    // .ci/run takes the toolchain with awk '$1 == "toolchain"': the same line.
    expect(goMod.split('\n').find((line) => line.split(/\s+/)[0] === 'toolchain')).toBe(`toolchain ${pinned.toolchain}`);
    expect(readFileSync(join(root, 'local/builds/go-modules/karpenter-binaries/go.sum'), 'utf8')).toContain(`sigs.k8s.io/karpenter ${pinned.version} h1:`);
  });
});
