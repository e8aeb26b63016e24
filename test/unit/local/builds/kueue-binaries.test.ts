import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinnedKueue } from '../../../../local/builds/kueue-binaries';

const root = join(import.meta.dirname, '..', '..', '..', '..');

describe('pinnedKueue', () => {
  it('reads the Kueue release from local/builds/go-modules/kueue-binaries/go.mod (no toolchain line: the installed Go builds it)', () => {
    const pinned = pinnedKueue();
    expect(pinned).toEqual({ version: 'v0.17.0', toolchain: 'local' });
    expect(readFileSync(join(root, 'local/builds/go-modules/kueue-binaries/go.sum'), 'utf8')).toContain(`sigs.k8s.io/kueue ${pinned.version} h1:`);
  });
});
