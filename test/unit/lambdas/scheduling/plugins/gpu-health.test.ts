import { describe, expect, it } from 'vitest';
import { createExtenderProfile, createPodRequirements, parseLabelSelector, parsePodRequirements, selectNode, snapshotFromKubernetes } from '../../../../../lambdas/scheduling';
import { gpuHealth } from '../../../../../lambdas/scheduling/plugins/gpu-health';
import { gpuNode } from '../kube-objects';

const withConditions = (name: string, conditions: { type: string; status: string; reason?: string; message?: string }[], labels: Record<string, string> = {}) => {
  const node = gpuNode(name, { labels });
  return { ...node, status: { ...node.status, conditions } };
};
const failing = (name: string) => withConditions(name, [{ type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus' }]);
const degraded = (name: string) => gpuNode(name, { labels: { 'gpu.nvidia.com/health': 'degraded' } });
const networkDown = (name: string) => withConditions(name, [{ type: 'NetworkingReady', status: 'False', reason: 'InterfaceNotUp', message: 'eth1 is down' }]);

const gpuPod = createPodRequirements({ name: 'p', gpuCount: 1 });
const selector = parseLabelSelector('job=x');
const distributed = createPodRequirements({ name: 'd', gpuCount: 1, ...(selector.ok ? { peerSelector: selector.selector } : {}) });
const grouped = createPodRequirements({ name: 'g', gpuCount: 1, groupSize: 4 });

describe('GpuHealth filter', () => {
  const snapshot = snapshotFromKubernetes([failing('bad'), networkDown('net'), gpuNode('ok')]);
  const profile = createExtenderProfile();
  const filter = (pod: typeof gpuPod) => {
    const state = profile.startCycle(snapshot, pod);
    return Object.fromEntries(snapshot.nodes.map((node) => [node.name, profile.filterNode(state, node)]));
  };

  it('refuses a GPU pod on a node whose AcceleratedHardwareReady is False, unresolvable, naming the condition, reason and message', () => {
    expect(filter(gpuPod).bad).toEqual({
      ok: false,
      code: 'NodeUnhealthy',
      message: 'Node is unhealthy: AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)',
      unresolvable: true,
    });
    expect(filter(gpuPod).ok?.ok).toBe(true);
  });

  it('refuses a pod of a distributed job (peer selector or group size) where NetworkingReady is False, and no other pod', () => {
    for (const pod of [distributed, grouped]) {
      expect(filter(pod).net).toMatchObject({ ok: false, code: 'NodeUnhealthy', unresolvable: true, message: expect.stringMatching(/^Node is unhealthy: NetworkingReady=False: InterfaceNotUp \(eth1 is down\); pods of distributed jobs/) as unknown });
    }
    expect(filter(gpuPod).net?.ok).toBe(true);
  });

  it('lets a pod without GPUs pass a failing node', () => {
    const state = profile.startCycle(snapshot, createPodRequirements({ name: 'cpu' }));
    expect(gpuHealth.filter(state, state.pod, snapshot.getNode('bad') as never)).toEqual({ ok: true });
  });

  it('refuses a failing node to a pod whose ResourceClaims the snapshot does not hold yet (they may claim GPUs), and lets it pass a healthy one', () => {
    const pod = {
      metadata: { name: 'dra', namespace: 'ml' },
      spec: { resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'one-gpu' }], containers: [{ name: 'main', resources: { claims: [{ name: 'gpus' }] } }] },
      status: { resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: 'dra-gpus-x7k2p' }] },
    };
    const unseen = parsePodRequirements(pod, () => undefined);
    expect(unseen.demand.gpuCount).toBe(0);
    expect(unseen.unseenClaims).toBe(1);
    expect(filter(unseen).bad).toMatchObject({ ok: false, code: 'NodeUnhealthy', unresolvable: true });
    expect(filter(unseen).ok?.ok).toBe(true);
  });
});

describe('GpuHealth score', () => {
  it('puts a degraded node below an equally good healthy one', () => {
    const snapshot = snapshotFromKubernetes([degraded('a-degraded'), gpuNode('b-healthy')]);
    expect(selectNode(createExtenderProfile(), snapshot, gpuPod).node?.name).toBe('b-healthy');
  });

  it('still lets a degraded node take a pod that fits nowhere else', () => {
    const snapshot = snapshotFromKubernetes([degraded('a-degraded'), gpuNode('b-small', { gpus: 1 })]);
    expect(selectNode(createExtenderProfile(), snapshot, createPodRequirements({ name: 'big', gpuCount: 4 })).node?.name).toBe('a-degraded');
  });

  it('avoids a node without networking for a pod that is not distributed', () => {
    const snapshot = snapshotFromKubernetes([networkDown('a-net'), gpuNode('b-healthy')]);
    expect(selectNode(createExtenderProfile(), snapshot, gpuPod).node?.name).toBe('b-healthy');
  });

  it('skips a cycle whose feasible nodes are all alike, leaving every score as it was', () => {
    const healthy = snapshotFromKubernetes([gpuNode('a', { utilization: '10' }), gpuNode('b', { utilization: '90' })]);
    const profile = createExtenderProfile();
    const breakdown = profile.explainScores(profile.startCycle(healthy, gpuPod), healthy.nodes);
    expect(breakdown.plugins.map((p) => p.plugin)).not.toContain('GpuHealth');
    const allDegraded = snapshotFromKubernetes([degraded('a'), degraded('b')]);
    const parts = profile.explainScores(profile.startCycle(allDegraded, gpuPod), allDegraded.nodes);
    expect(parts.plugins.map((p) => p.plugin)).not.toContain('GpuHealth');
    const mixed = snapshotFromKubernetes([degraded('a'), gpuNode('b')]);
    const scored = profile.explainScores(profile.startCycle(mixed, gpuPod), mixed.nodes);
    expect(scored.plugins.find((p) => p.plugin === 'GpuHealth')?.scores).toEqual(new Float64Array([0, 100]));
  });
});
