import type { CoreV1Event, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { capacityOutcome, freshNominations, NOMINATION_FRESH_MS } from '../../../../lambdas/reconciler/capacity';
import { reconcileOutcome } from '../../../../lambdas/reconciler/outcome';

const now = new Date('2026-12-01T12:00:00Z');
const ago = (ms: number): Date => new Date(now.getTime() - ms);
const settings = { runIntervalSeconds: 60, pricesUsd: { 'g5.12xlarge': 5.672, 'p5.48xlarge': 55.04 } };

function node(name: string, options: { type?: string; createdAgoMs?: number; deleting?: boolean; gpus?: string } = {}): V1Node {
  return {
    metadata: {
      name,
      creationTimestamp: ago(options.createdAgoMs ?? 3_600_000),
      labels: options.type === undefined ? {} : { 'node.kubernetes.io/instance-type': options.type },
      ...(options.deleting ? { deletionTimestamp: ago(1000) } : {}),
    },
    status: { allocatable: { 'nvidia.com/gpu': options.gpus ?? '4' }, capacity: { 'nvidia.com/gpu': options.gpus ?? '4' } },
  };
}

function pendingPod(name: string): V1Pod {
  return {
    metadata: { namespace: 'ml', name, creationTimestamp: ago(120_000) },
    spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.' }] },
  };
}

function nominated(pod: string, lastAgoMs: number, component = 'karpenter', target = 'nodeclaim/gpu-abcde'): CoreV1Event {
  return {
    metadata: { namespace: 'ml', name: `${pod}.1` },
    involvedObject: { kind: 'Pod', namespace: 'ml', name: pod },
    reason: 'Nominated',
    message: `Pod should schedule on: ${target}`,
    source: { component },
    lastTimestamp: ago(lastAgoMs),
  };
}

describe('capacityOutcome', () => {
  it('counts GPU nodes launched within the run interval and those being deleted', () => {
    const nodes = [node('old', { type: 'g5.12xlarge' }), node('new', { type: 'g5.12xlarge', createdAgoMs: 30_000 }), node('edge', { type: 'g5.12xlarge', createdAgoMs: 60_000 }), node('going', { type: 'p5.48xlarge', deleting: true })];
    const outcome = capacityOutcome(nodes, [], [], settings, now);
    // The node created exactly one interval ago belongs to the previous run.
    expect([outcome.gpuNodes, outcome.launched, outcome.terminating]).toEqual([4, 1, 1]);
  });

  it('sums the hourly prices of the GPU nodes and counts those without one', () => {
    const nodes = [node('a', { type: 'g5.12xlarge' }), node('b', { type: 'g5.12xlarge' }), node('c', { type: 'p5.48xlarge' }), node('d', { type: 'x9.large' }), node('e')];
    const outcome = capacityOutcome(nodes, [], [], settings, now);
    expect(outcome.hourlyCostUsd).toBe(66.384);
    expect([outcome.unpriced, outcome.unpricedTypes]).toEqual([2, ['x9.large', '(no instance-type label)']]);
  });

  it('splits pending GPU pods: a fresh Karpenter nomination is capacity on its way, the rest wait for a fit', () => {
    const pods = [pendingPod('a'), pendingPod('b'), pendingPod('c'), pendingPod('d')];
    const events = [
      nominated('a', 30_000),
      // Stale: Karpenter stopped planning for it.
      nominated('b', NOMINATION_FRESH_MS + 1000),
      // Not Karpenter's.
      nominated('c', 1000, 'default-scheduler'),
    ];
    const outcome = capacityOutcome([], pods, events, settings, now);
    expect([outcome.waitingForCapacity, outcome.waitingForFit]).toEqual([1, 3]);
  });

  it('reads the newest time an event carries (series, lastTimestamp, eventTime)', () => {
    const seriesEvent: CoreV1Event = { ...nominated('a', NOMINATION_FRESH_MS * 3), series: { count: 5, lastObservedTime: ago(5000) } };
    const eventsApi: CoreV1Event = { metadata: {}, involvedObject: { kind: 'Pod', namespace: 'ml', name: 'b' }, reason: 'Nominated', reportingComponent: 'karpenter', eventTime: ago(5000) };
    expect([...freshNominations([seriesEvent, eventsApi], now).keys()].sort()).toEqual(['ml/a', 'ml/b']);
  });

  it('a nomination for a Ready node is no capacity coming: Karpenter believes the pod fits there, the scheduler does not', () => {
    const ready = { ...node('gpu-ready'), status: { ...node('gpu-ready').status, conditions: [{ type: 'Ready', status: 'True' }] } };
    const booting = { ...node('gpu-booting'), status: { ...node('gpu-booting').status, conditions: [{ type: 'Ready', status: 'False' }] } };
    const pods = [pendingPod('on-ready'), pendingPod('on-booting'), pendingPod('on-unlisted'), pendingPod('on-claim')];
    const events = [
      nominated('on-ready', 1000, 'karpenter', 'nodeclaim/gpu-a, node/gpu-ready'),
      nominated('on-booting', 1000, 'karpenter', 'nodeclaim/gpu-b, node/gpu-booting'),
      // Just joined, not yet selected by NODE_SELECTOR (no GPU labels): still coming.
      nominated('on-unlisted', 1000, 'karpenter', 'nodeclaim/gpu-c, node/gpu-new'),
      nominated('on-claim', 1000),
    ];
    const outcome = capacityOutcome([], pods, events, settings, now, [ready, booting]);
    expect([outcome.waitingForCapacity, outcome.waitingForFit]).toEqual([3, 1]);
  });

  it('takes the latest of a pod\'s nominations', () => {
    const ready = { ...node('gpu-ready'), status: { ...node('gpu-ready').status, conditions: [{ type: 'Ready', status: 'True' }] } };
    const events = [nominated('a', 1000, 'karpenter', 'nodeclaim/gpu-a, node/gpu-ready'), nominated('a', 60_000)];
    expect(capacityOutcome([], [pendingPod('a')], events, settings, now, [ready]).waitingForFit).toBe(1);
  });
});

describe('reconcileOutcome: capacity', () => {
  it('counts only the nodes the GPU numbers count, and the pending GPU pods of the GPU scheduler', () => {
    const nodes = [node('gpu-1', { type: 'g5.12xlarge', createdAgoMs: 10_000 }), node('cpu-1', { type: 'm5.large', gpus: '0', createdAgoMs: 10_000 })];
    const otherScheduler = { ...pendingPod('z'), spec: { ...pendingPod('z').spec, schedulerName: 'default-scheduler', containers: pendingPod('z').spec?.containers ?? [] } };
    const outcome = reconcileOutcome(nodes, [pendingPod('a'), otherScheduler], { resourceSlices: [], resourceClaims: [] }, 'gpu-scheduler', now, {
      nominations: [nominated('a', 1000)],
      settings,
    });
    expect(outcome.capacity).toMatchObject({ gpuNodes: 1, launched: 1, hourlyCostUsd: 5.672, unpriced: 0, waitingForCapacity: 1, waitingForFit: 0 });
    expect(outcome.gpus.nodes).toBe(1);
  });
});
