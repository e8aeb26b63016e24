import type { ResourceV1ResourceClaim, V1Node, V1Pod, V1ResourceSlice } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { reconcileOutcome } from '../../../../lambdas/reconciler/outcome';
import { DRA_GPUS, nvidiaGpuClaim, nvidiaGpuDevice, nvidiaResourceSlice, type DraGpuModel } from '../../../../local/addons/dra-gpu-driver';
import { gpuNode, gpuPod } from '../scheduling/kube-objects';

const NOW = new Date('2026-12-01T10:00:00Z');

describe('reconcileOutcome', () => {
  it('counts the listed GPUs by model and the GPU pods pending for the GPU scheduler, those Kueue holds by a scheduling gate apart', () => {
    const nodes = [gpuNode('a', { gpus: 8, model: 'A100' }), gpuNode('t', { gpus: 4, model: 'T4' })] as V1Node[];
    const waiting = gpuPod('w', { gpus: 2 }) as V1Pod;
    const gated = gpuPod('g', { gpus: 8 }) as V1Pod;
    const pods = [
      gpuPod('x', { gpus: 6, nodeName: 'a' }) as V1Pod,
      gpuPod('y', { gpus: 1, nodeName: 't' }) as V1Pod,
      {
        ...waiting,
        metadata: { ...waiting.metadata, creationTimestamp: new Date(NOW.getTime() - 90_000) },
        spec: { ...waiting.spec, containers: waiting.spec?.containers ?? [], schedulerName: 'gpu-scheduler' },
        status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', message: '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.' }] },
      },
      // Older, but Kueue has not let it go to the scheduler yet (TAS chooses its domain first).
      {
        ...gated,
        metadata: { ...gated.metadata, creationTimestamp: new Date(NOW.getTime() - 600_000) },
        spec: { ...gated.spec, containers: gated.spec?.containers ?? [], schedulerName: 'gpu-scheduler', schedulingGates: [{ name: 'kueue.x-k8s.io/topology' }] },
        status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }] },
      },
    ];
    const outcome = reconcileOutcome(nodes, pods, { resourceSlices: [], resourceClaims: [] }, 'gpu-scheduler', NOW);
    expect(outcome.gpus).toMatchObject({ nodes: 2, allocatable: 12, allocated: 7, idle: 5 });
    expect(Object.keys(outcome.byModel)).toEqual(['A100', 'T4']);
    expect(outcome.byModel.A100).toMatchObject({ allocatable: 8, allocated: 6, idle: 2 });
    expect(outcome.pending).toEqual({ count: 1, gated: 1, oldestSeconds: 90, reasons: [{ code: 'InsufficientGpus', pods: 1 }] });
  });
});

/** A node NVIDIA's DRA driver serves: no nvidia.com/gpu in allocatable, no GPU labels; its slices say what it has. */
function draNode(name: string): V1Node {
  const allocatable = { cpu: '192', memory: '2Ti', pods: '110' };
  return { metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { allocatable, capacity: allocatable } };
}

const slice = (nodeName: string, count: number, gpu: DraGpuModel, devices?: unknown[]): V1ResourceSlice =>
  nvidiaResourceSlice(nodeName, count, gpu, devices === undefined ? {} : { devices }) as unknown as V1ResourceSlice;

describe('reconcileOutcome with GPUs from NVIDIA DRA driver (KEP-5004)', () => {
  const nodes = [draNode('p5'), draNode('g5'), gpuNode('p4d', { gpus: 8, model: 'A100' }) as V1Node];
  const pods = [gpuPod('train', { gpus: 6, nodeName: 'p5' }), gpuPod('infer', { gpus: 1, nodeName: 'g5' }), gpuPod('plugin', { gpus: 2, nodeName: 'p4d' })] as V1Pod[];

  it('counts a DRA node\'s GPUs from its slices and its bound nvidia.com/gpu pods against them, beside device-plugin nodes', () => {
    const slices = [slice('p5', 8, DRA_GPUS.h100), slice('g5', 4, DRA_GPUS.a10g)];
    const outcome = reconcileOutcome(nodes, pods, { resourceSlices: slices, resourceClaims: [] }, 'gpu-scheduler', NOW);
    expect(outcome.gpus).toMatchObject({ nodes: 3, allocatable: 20, allocated: 9, idle: 11 });
    expect(Object.keys(outcome.byModel)).toEqual(['A100', 'A10G', 'H100']);
    expect(outcome.byModel.H100).toMatchObject({ nodes: 1, allocatable: 8, allocated: 6, idle: 2 });
    expect(outcome.byModel.A10G).toMatchObject({ nodes: 1, allocatable: 4, allocated: 1, idle: 3 });
    expect(outcome.byModel.A100).toMatchObject({ nodes: 1, allocatable: 8, allocated: 2, idle: 6 });
    expect(outcome.invalidNodes).toEqual({ count: 0, examples: [] });
  });

  it('counts the GPUs ResourceClaims hold on a DRA node as allocated, and pods waiting on a claim as pending GPU pods', () => {
    const slices = [slice('p5', 8, DRA_GPUS.h100), slice('g5', 4, DRA_GPUS.a10g)];
    const claims = [
      nvidiaGpuClaim('train-gpus', 'ml', 2, [], { node: 'p5', devices: ['gpu-6', 'gpu-7'] }),
      nvidiaGpuClaim('waiting-gpus', 'ml', 1),
    ] as unknown as ResourceV1ResourceClaim[];
    const waiting = {
      metadata: { name: 'waiting', namespace: 'ml', creationTimestamp: new Date(NOW.getTime() - 60_000) },
      spec: { schedulerName: 'gpu-scheduler', resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 't' }], containers: [{ name: 'main' }] },
      status: { phase: 'Pending', resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: 'waiting-gpus' }] },
    } as unknown as V1Pod;
    const outcome = reconcileOutcome(nodes, [...pods, waiting], { resourceSlices: slices, resourceClaims: claims }, 'gpu-scheduler', NOW);
    // 9 through nvidia.com/gpu as before, and the claim's 2 on p5.
    expect(outcome.gpus).toMatchObject({ nodes: 3, allocatable: 20, allocated: 11, idle: 9 });
    expect(outcome.byModel.H100).toMatchObject({ allocatable: 8, allocated: 8, idle: 0 });
    expect(outcome.pending).toMatchObject({ count: 1, oldestSeconds: 60 });
  });

  it('without slices (none listed, or the listing failed) a DRA node counts no GPUs; device-plugin nodes still do', () => {
    const outcome = reconcileOutcome(nodes, pods, { resourceSlices: [], resourceClaims: [] }, 'gpu-scheduler', NOW);
    expect(outcome.gpus).toMatchObject({ nodes: 1, allocatable: 8, allocated: 2 });
    expect(Object.keys(outcome.byModel)).toEqual(['A100']);
  });

  it('a hostile slice leaves out only its node, named with the reason; every other node counts as before', () => {
    const nameless = nvidiaGpuDevice(0, DRA_GPUS.h100) as { attributes: Record<string, unknown> };
    delete nameless.attributes.productName;
    const tooMany = Array.from({ length: 200 }, (_, minor) => nvidiaGpuDevice(minor, DRA_GPUS.h100));
    const hostile = [...nodes, draNode('huge')];
    const slices = [slice('p5', 1, DRA_GPUS.h100, [nameless]), slice('g5', 4, DRA_GPUS.a10g), slice('huge', 200, DRA_GPUS.h100, tooMany)];
    const outcome = reconcileOutcome(hostile, [...pods, gpuPod('greedy', { gpus: 64, nodeName: 'huge' }) as V1Pod], { resourceSlices: slices, resourceClaims: [] }, 'gpu-scheduler', NOW);
    expect(outcome.gpus).toMatchObject({ nodes: 2, allocatable: 12, allocated: 3, idle: 9 });
    expect(Object.keys(outcome.byModel)).toEqual(['A100', 'A10G']);
    expect(outcome.invalidNodes.count).toBe(2);
    expect(outcome.invalidNodes.examples).toEqual([
      { node: 'p5', reason: expect.stringContaining('device "gpu-0" has no productName') },
      { node: 'huge', reason: expect.stringContaining('lists 200 devices, more than 128') },
    ]);
  });
});
