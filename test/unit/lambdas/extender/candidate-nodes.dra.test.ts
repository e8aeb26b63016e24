import { describe, expect, it } from 'vitest';
import { createCandidateResolver } from '../../../../lambdas/extender/candidate-nodes';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { DRA_GPUS, nvidiaResourceSlice } from '../../../../local/dra-gpu-driver';

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
