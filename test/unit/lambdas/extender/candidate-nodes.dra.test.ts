import { describe, expect, it } from 'vitest';
import { createCandidateResolver, UNSEEN_CLAIM_REFRESH_MS } from '../../../../lambdas/extender/candidate-nodes';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { DRA_GPUS, nvidiaGpuClaim, nvidiaResourceSlice } from '../../../../local/addons/dra-gpu-driver';

// Nodes mode (nodeCacheCapable: false) gets full Node objects, which do not
// say what a DRA node's ResourceSlices hold: they are read against the cache's.

const draNode = { metadata: { name: 'dra' }, status: { allocatable: { cpu: '192', memory: '2Ti', pods: '110' } } };
const slice = { ...nvidiaResourceSlice('dra', 8, DRA_GPUS.h100), metadata: { name: 'dra-gpu.nvidia.com-1' } };
const noWarnings = (): void => {
  throw new Error('unexpected warning');
};

describe('createCandidateResolver in Nodes mode with DRA GPUs', () => {
  it('gives a request node the GPUs of its slices in the cached cluster', async () => {
    const base = snapshotFromKubernetes([draNode], [], [slice]);
    const resolve = createCandidateResolver({ snapshot: () => Promise.resolve(base) });
    const resolved = await resolve({ mode: 'Nodes', items: [draNode] }, noWarnings);
    if (!resolved.ok) throw new Error(resolved.error);
    expect(resolved.value.nodes[0]).toMatchObject({ name: 'dra', gpuCount: 8, gpuModelName: 'H100', gpuMemoryMiB: 81559 });
  });

  it('without cluster access the node has no GPUs the extender knows of', async () => {
    const resolve = createCandidateResolver(undefined);
    const resolved = await resolve({ mode: 'Nodes', items: [draNode] }, noWarnings);
    if (!resolved.ok) throw new Error(resolved.error);
    expect(resolved.value.nodes[0]?.gpuCount).toBe(0);
  });
});

describe('createCandidateResolver and the pod\'s ResourceClaims', () => {
  const before = snapshotFromKubernetes([draNode], [], [slice]);
  const after = snapshotFromKubernetes([draNode], [], [slice], [nvidiaGpuClaim('pod-gpus-x1', 'ml', 2)]);

  it('refreshes a snapshot that lacks one of the pod\'s claims (made moments before the request), within UNSEEN_CLAIM_REFRESH_MS', async () => {
    const asked: (number | undefined)[] = [];
    const resolve = createCandidateResolver({
      snapshot: (options) => {
        asked.push(options?.maxAgeMs);
        return Promise.resolve(options?.maxAgeMs === undefined ? before : after);
      },
    });
    const resolved = await resolve({ mode: 'NodeNames', names: ['dra'] }, noWarnings, ['ml/pod-gpus-x1']);
    if (!resolved.ok) throw new Error(resolved.error);
    expect(resolved.value.snapshot.gpuClaim('ml/pod-gpus-x1')).toMatchObject({ requests: [{ count: 2 }] });
    expect(asked).toEqual([undefined, UNSEEN_CLAIM_REFRESH_MS]);
    // Known claims (or none) cost no refresh.
    asked.length = 0;
    await resolve({ mode: 'NodeNames', names: ['dra'] }, noWarnings, []);
    expect(asked).toEqual([undefined]);
  });

  it('decides with the cached snapshot, and says so, when that refresh fails', async () => {
    const warnings: string[] = [];
    const resolve = createCandidateResolver({
      snapshot: (options) => (options?.maxAgeMs === undefined ? Promise.resolve(before) : Promise.reject(new Error('API server unreachable'))),
    });
    const resolved = await resolve({ mode: 'Nodes', items: [draNode] }, (message) => warnings.push(message), ['ml/pod-gpus-x1']);
    expect(resolved.ok).toBe(true);
    expect(warnings).toEqual(['cluster cache refresh for unseen ResourceClaims failed; deciding with the cached snapshot']);
  });
});
