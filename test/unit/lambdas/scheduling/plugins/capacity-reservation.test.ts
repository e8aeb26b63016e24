import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../../../../../lambdas/scheduling';
import {
  createCapacityBlockEnd,
  createExtenderProfile,
  parsePodRequirements,
  rejectionCode,
  reservedCapacity,
  SKIP,
  snapshotFromKubernetes,
} from '../../../../../lambdas/scheduling';
import { formatMinutes } from '../../../../../lambdas/scheduling/plugins/capacity-reservation';
import { gpuNode, gpuPod } from '../kube-objects';

const NOW = Date.parse('2026-06-01T09:00:00Z');
const HOUR = 3_600_000;
const endIn = (ms: number): string => String(Math.floor((NOW + ms) / 1000));

/** A Capacity Block node as Karpenter and our labeler label it. */
const block = (name: string, endsInMs: number): KubeNode =>
  gpuNode(name, {
    labels: {
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block',
      'gpu.nvidia.com/capacity-reservation-end': endIn(endsInMs),
    },
  });

function filterAll(nodes: readonly KubeNode[], annotations: Record<string, string> = {}, marginMs?: number) {
  const plugin = createCapacityBlockEnd({ now: () => NOW, ...(marginMs === undefined ? {} : { drainMarginMs: marginMs }) });
  const profile = createExtenderProfile({ capacityBlockEnd: { now: () => NOW, ...(marginMs === undefined ? {} : { drainMarginMs: marginMs }) } });
  const snapshot = snapshotFromKubernetes(nodes, []);
  const pod = parsePodRequirements(gpuPod('job', { gpus: 1, annotations }));
  const state = profile.startCycle(snapshot, pod);
  return Object.fromEntries(snapshot.nodes.map((node) => [node.name, plugin.filter(state, pod, node)]));
}

describe('formatMinutes', () => {
  it.each([
    [0, '0m'],
    [40 * 60_000, '40m'],
    [130 * 60_000, '2h10m'],
    [3 * HOUR, '3h'],
    [(24 * 3 + 4) * HOUR, '3d4h'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatMinutes(ms)).toBe(text);
  });
});

describe('CapacityBlockEnd', () => {
  it('places a 30-minute pod on a block ending in 3 h, refuses a 6-hour pod there naming the end', () => {
    const nodes = [block('cb', 3 * HOUR)];
    expect(filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '30m' }).cb).toEqual({ ok: true });
    const refused = filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '6h' }).cb;
    expect(refused).toMatchObject({ ok: false, code: 'CapacityBlockEnding', unresolvable: true });
    expect(refused?.ok === false && refused.message).toBe(
      "Capacity Block ends too soon: the node's Capacity Block ends 2026-06-01T12:00:00Z (in 3h), before the pod's expected runtime of 6h and the 40m drain margin have passed",
    );
    expect(refused?.ok === false && rejectionCode(refused.message)).toBe('CapacityBlockEnding');
  });

  it('counts the margin after the runtime: 2h20m fits a block ending in 3h, 2h21m does not', () => {
    const nodes = [block('cb', 3 * HOUR)];
    expect(filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '2h20m' }).cb?.ok).toBe(true);
    expect(filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '2h21m' }).cb?.ok).toBe(false);
    expect(filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '2h21m' }, 30 * 60_000).cb?.ok).toBe(true);
  });

  it('without a runtime (or with a malformed one) keeps new pods off a block in its last 40 minutes only', () => {
    const nodes = [block('soon', 39 * 60_000), block('later', 41 * 60_000), block('ended', -HOUR)];
    for (const annotations of [{}, { 'gpu.nvidia.com/expected-runtime': 'six hours' }] as Record<string, string>[]) {
      const verdicts = filterAll(nodes, annotations);
      expect(verdicts.later?.ok).toBe(true);
      expect(verdicts.soon).toMatchObject({ ok: false, code: 'CapacityBlockEnding' });
      expect(verdicts.soon?.ok === false && verdicts.soon.message).toContain('ends 2026-06-01T09:39:00Z (in 39m), within the 40m drain margin');
      expect(verdicts.ended?.ok === false && verdicts.ended.message).toContain("the node's Capacity Block ended 2026-06-01T08:00:00Z");
    }
  });

  it('knows a block by Karpenter\'s, an EKS node group\'s or our labels; an ODCR\'s end takes nothing away', () => {
    const end = { 'gpu.nvidia.com/capacity-reservation-end': endIn(HOUR) };
    const nodes = [
      gpuNode('eks', { labels: { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK', ...end } }),
      gpuNode('ours', { labels: { 'gpu.nvidia.com/capacity-type': 'reserved', 'gpu.nvidia.com/capacity-reservation-type': 'capacity-block', ...end } }),
      gpuNode('odcr', { labels: { 'karpenter.sh/capacity-type': 'reserved', 'karpenter.k8s.aws/capacity-reservation-type': 'default', ...end } }),
      gpuNode('no-end-yet', { labels: { 'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block' } }),
      gpuNode('bad-end', { labels: { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK', 'gpu.nvidia.com/capacity-reservation-end': 'tomorrow' } }),
      gpuNode('plain'),
    ];
    const verdicts = filterAll(nodes, { 'gpu.nvidia.com/expected-runtime': '6h' });
    expect(Object.fromEntries(Object.entries(verdicts).map(([name, status]) => [name, status.ok]))).toEqual({
      eks: false,
      ours: false,
      odcr: true,
      'no-end-yet': true,
      'bad-end': true,
      plain: true,
    });
  });

  it('refuses a negative margin', () => {
    expect(() => createCapacityBlockEnd({ drainMarginMs: -1 })).toThrow(/drain margin/);
  });
});

describe('ReservedCapacity', () => {
  const score = (nodes: readonly KubeNode[]) => {
    const snapshot = snapshotFromKubernetes(nodes, []);
    const pod = parsePodRequirements(gpuPod('p', { gpus: 1 }));
    const profile = createExtenderProfile();
    const state = profile.startCycle(snapshot, pod);
    const skipped = reservedCapacity.preScore?.(state, pod, snapshot.nodes) === SKIP;
    return { skipped, scores: snapshot.nodes.map((node) => reservedCapacity.score(state, pod, node)) };
  };
  const reserved = (name: string, labels: Record<string, string>) => gpuNode(name, { labels });

  it('scores reserved 100 and on-demand and spot alike at 0', () => {
    const nodes = [
      reserved('karpenter', { 'karpenter.sh/capacity-type': 'reserved' }),
      reserved('eks-block', { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK' }),
      reserved('ours', { 'gpu.nvidia.com/capacity-type': 'reserved' }),
      reserved('od', { 'karpenter.sh/capacity-type': 'on-demand' }),
      reserved('spot', { 'eks.amazonaws.com/capacityType': 'SPOT' }),
      gpuNode('unlabelled'),
    ];
    expect(score(nodes)).toEqual({ skipped: false, scores: [100, 100, 100, 0, 0, 0] });
  });

  it('our label (from EC2) wins over Karpenter\'s: Auto Mode labels an open-ODCR instance on-demand', () => {
    const nodes = [reserved('auto', { 'karpenter.sh/capacity-type': 'on-demand', 'gpu.nvidia.com/capacity-type': 'reserved' }), gpuNode('od')];
    expect(score(nodes).scores).toEqual([100, 0]);
  });

  it('has no preference, and no weight, when no feasible node is reserved or all are', () => {
    expect(score([gpuNode('a'), reserved('spot', { 'karpenter.sh/capacity-type': 'spot' })]).skipped).toBe(true);
    expect(score([reserved('a', { 'karpenter.sh/capacity-type': 'reserved' }), reserved('b', { 'gpu.nvidia.com/capacity-type': 'reserved' })]).skipped).toBe(true);
  });
});
