import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KARPENTER_VERSION } from '../../../../../cdk/lib/karpenter/karpenter-release';

describe('KARPENTER_VERSION', () => {
  it('is the release of the Karpenter core the local harness builds and runs', () => {
    const goMod = readFileSync(new URL('../../../../../local/builds/go-modules/karpenter-binaries/go.mod', import.meta.url), 'utf8');
    const core = /^\s*(?:require\s+)?sigs\.k8s\.io\/karpenter\s+v(\d+\.\d+\.\d+)\s*$/m.exec(goMod)?.[1];
    expect(core).toBe(KARPENTER_VERSION);
  });
});
