import { describe, expect, it } from 'vitest';
import { claimedGpuDemand, gpuClaimFromKubernetes, podGpuClaimKeys, readSelector } from '../../../../lambdas/scheduling/dra-claims';
import { parsePodRequirements } from '../../../../lambdas/scheduling/pod-requirements';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { DRA_GPUS, memoryAtLeast, nvidiaGpuClaim, nvidiaResourceSlice, productNameIs } from '../../../../local/addons/dra-gpu-driver';

const claim = (name: string, count: number, selectors: readonly string[] = [], allocation?: { node: string; devices: readonly string[] }, namespace = 'ml') =>
  nvidiaGpuClaim(name, namespace, count, selectors, allocation);

/** A pod whose claim `gpus` comes from a template; the controller's name for the made claim is in its status. */
function claimingPod(name: string, madeClaim: string | undefined, annotations: Record<string, string> = {}): Record<string, unknown> {
  return {
    metadata: { name, namespace: 'ml', uid: `uid-${name}`, annotations },
    spec: {
      resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'tpl' }],
      containers: [{ name: 'main', resources: { claims: [{ name: 'gpus' }] } }],
    },
    status: madeClaim === undefined ? {} : { resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: madeClaim }] },
  };
}

const draNode = (name: string) => ({ metadata: { name }, status: { allocatable: { cpu: '192', memory: '2Ti', pods: '110' } } });

describe('readSelector: model and memory from CEL in the forms NVIDIA documents', () => {
  it.each([
    [productNameIs('NVIDIA H100 80GB HBM3'), ['H100'], undefined],
    [`device.attributes["gpu.nvidia.com"]["productName"] == "NVIDIA A10G"`, ['A10G'], undefined],
    [`device.attributes['gpu.nvidia.com'].productName in ['NVIDIA H100 80GB HBM3', 'NVIDIA H200']`, ['H100', 'H200'], undefined],
    [memoryAtLeast('40Gi'), undefined, 40960],
    [`device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('20Gi'))`, undefined, 20480],
    [`${productNameIs('NVIDIA A100-SXM4-80GB')} && ${memoryAtLeast('80Gi')}`, ['A100'], 81920],
  ])('%s', (expression, models, memory) => {
    expect(readSelector(expression)).toEqual({ models, minMemoryMiB: memory });
  });

  it('reads nothing from a disjunction or a negation: a part of either is no requirement', () => {
    expect(readSelector(`${productNameIs('NVIDIA H100 80GB HBM3')} || ${productNameIs('NVIDIA A10G')}`)).toEqual({ models: undefined, minMemoryMiB: undefined });
    expect(readSelector(`!(${productNameIs('NVIDIA A10G')})`)).toEqual({ models: undefined, minMemoryMiB: undefined });
  });

  it('ignores what it does not know (other attributes, other drivers)', () => {
    expect(readSelector(`device.attributes['gpu.nvidia.com'].architecture == 'Hopper' && device.attributes['other.example.com'].productName == 'X'`)).toEqual({
      models: undefined,
      minMemoryMiB: undefined,
    });
  });
});

describe('gpuClaimFromKubernetes', () => {
  it('reads the count and selectors of a request for NVIDIA GPUs, and the devices of its allocation', () => {
    expect(gpuClaimFromKubernetes(claim('c', 2, [productNameIs(DRA_GPUS.h100.productName)], { node: 'n1', devices: ['gpu-0', 'gpu-1'] }))).toEqual({
      key: 'ml/c',
      requests: [{ count: 2, models: ['H100'], minMemoryMiB: undefined }],
      allocated: [
        { pool: 'n1', device: 'gpu-0' },
        { pool: 'n1', device: 'gpu-1' },
      ],
      isAllocated: true,
      extendedResource: false,
    });
  });

  it('keeps a claim of other devices as one without GPUs, and drops requests it cannot believe', () => {
    const other = { metadata: { name: 'nic', namespace: 'ml' }, spec: { devices: { requests: [{ name: 'n', exactly: { deviceClassName: 'rdma.example.com', count: 1 } }] } } };
    expect(gpuClaimFromKubernetes(other)).toMatchObject({ key: 'ml/nic', requests: [], allocated: [] });
    const absurd = claim('huge', 1) as { spec: { devices: { requests: { exactly: Record<string, unknown> }[] } } };
    for (const count of [1e9, -1, 1.5, '2']) {
      const request = absurd.spec.devices.requests[0];
      if (request) request.exactly.count = count;
      expect(gpuClaimFromKubernetes(absurd)?.requests, String(count)).toEqual([]);
    }
    expect(gpuClaimFromKubernetes({ metadata: {} })).toBeUndefined();
    expect(gpuClaimFromKubernetes('nonsense')).toBeUndefined();
  });

  it('reads a firstAvailable list as what all its alternatives share', () => {
    const prioritized = {
      metadata: { name: 'p', namespace: 'ml' },
      spec: {
        devices: {
          requests: [
            {
              name: 'gpus',
              firstAvailable: [
                { name: 'h100', deviceClassName: 'gpu.nvidia.com', count: 2, selectors: [{ cel: { expression: productNameIs(DRA_GPUS.h100.productName) } }] },
                { name: 'a100', deviceClassName: 'gpu.nvidia.com', count: 4, selectors: [{ cel: { expression: productNameIs(DRA_GPUS.a100.productName) } }] },
              ],
            },
          ],
        },
      },
    };
    expect(gpuClaimFromKubernetes(prioritized)?.requests).toEqual([{ count: 2, models: ['H100', 'A100'], minMemoryMiB: undefined }]);
  });

  it('marks the claim kube-scheduler makes for a KEP-5004 request', () => {
    const made = { ...claim('ext', 1), metadata: { name: 'ext', namespace: 'ml', annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' } } };
    expect(gpuClaimFromKubernetes(made)?.extendedResource).toBe(true);
  });
});

describe('podGpuClaimKeys and claimedGpuDemand', () => {
  const claims = new Map(
    [claim('free', 2, [productNameIs(DRA_GPUS.a100.productName), memoryAtLeast('40Gi')]), claim('held', 4, [], { node: 'n1', devices: ['gpu-0'] })].map((c) => {
      const read = gpuClaimFromKubernetes(c);
      if (read === undefined) throw new Error('unreadable fixture');
      return [read.key, read] as const;
    }),
  );

  it('finds a claim by name or, for a template, by the name the pod status gives the made claim', () => {
    const pod = { metadata: { namespace: 'ml' }, spec: { resourceClaims: [{ name: 'a', resourceClaimName: 'shared' }, { name: 'b', resourceClaimTemplateName: 't' }, { name: 'c', resourceClaimTemplateName: 't' }] }, status: { resourceClaimStatuses: [{ name: 'b', resourceClaimName: 'pod-b-x1' }] } };
    // `c` has no claim yet: the controller has not made it.
    expect(podGpuClaimKeys(pod)).toEqual(['ml/shared', 'ml/pod-b-x1']);
  });

  it('counts claims still to allocate; an allocated claim holds its devices already; an unseen one is counted as unseen', () => {
    expect(claimedGpuDemand(claimingPod('p', 'free'), (key) => claims.get(key))).toEqual({ count: 2, models: ['A100'], minMemoryMiB: 40960, unseen: 0 });
    expect(claimedGpuDemand(claimingPod('p', 'held'), (key) => claims.get(key))).toMatchObject({ count: 0, unseen: 0 });
    expect(claimedGpuDemand(claimingPod('p', 'not-yet-seen'), (key) => claims.get(key))).toMatchObject({ count: 0, unseen: 1 });
  });

  it('gives parsePodRequirements the GPUs, model and memory of the claims; the annotations win where they speak', () => {
    const lookup = (key: string) => claims.get(key);
    expect(parsePodRequirements(claimingPod('p', 'free'), lookup)).toMatchObject({ demand: { gpuCount: 2, gpuMilli: 1000 }, gpuModels: ['A100'], gpuMemoryMiB: 40960 });
    expect(parsePodRequirements(claimingPod('p', 'free', { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '80Gi' }), lookup)).toMatchObject({
      demand: { gpuCount: 2 },
      gpuModels: ['H100'],
      gpuMemoryMiB: 81920,
    });
    // Without the claims (no cluster access), the pod asks for no GPU.
    expect(parsePodRequirements(claimingPod('p', 'free')).demand.gpuCount).toBe(0);
  });
});

describe('GPUs held by claims on a DRA node', () => {
  const slices = [nvidiaResourceSlice('n1', 8, DRA_GPUS.h100), nvidiaResourceSlice('n2', 8, DRA_GPUS.h100)];

  it('are taken before any pod binds, each device once however many claims name it', () => {
    const claims = [
      claim('a', 2, [], { node: 'n1', devices: ['gpu-0', 'gpu-1'] }),
      // Shared by two pods, or listed twice: one device is one GPU.
      claim('b', 1, [], { node: 'n1', devices: ['gpu-1'] }, 'other'),
      claim('c', 1, [], { node: 'n1', devices: ['gpu-5'] }),
      // kube-scheduler's claim for a KEP-5004 pod: the pod's nvidia.com/gpu request counts it.
      { ...claim('ext', 1, [], { node: 'n2', devices: ['gpu-0'] }), metadata: { name: 'ext', namespace: 'ml', annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' } } },
      // A device the node's slices do not list (a MIG device, or gone): no GPU of ours.
      claim('mig', 1, [], { node: 'n2', devices: ['gpu-0-mig-1g.10gb-0'] }),
    ];
    const snapshot = snapshotFromKubernetes([draNode('n1'), draNode('n2')], [], slices, claims);
    expect(snapshot.dra.gpusByNode.get('n1')).toMatchObject({ devices: 8, claimed: 3 });
    expect(snapshot.getNode('n1')).toMatchObject({ gpuCount: 8, claimedGpus: 3, freeWholeGpus: 5 });
    expect(snapshot.getNode('n2')).toMatchObject({ gpuCount: 8, claimedGpus: 0, freeWholeGpus: 8 });
    // A pod bound afterwards takes free devices, and the claimed ones stay taken when it leaves.
    const node = snapshot.getNode('n1');
    const clone = node?.clone();
    expect(clone).toMatchObject({ claimedGpus: 3, freeWholeGpus: 5 });
    expect(snapshot.gpuClaim('ml/a')?.allocated).toHaveLength(2);
  });
});
