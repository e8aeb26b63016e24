import { describe, expect, it } from 'vitest';
import type { CycleResult } from '../../../simulator/kube-scheduler-cycle';
import { parseSchedPod } from '../../../simulator/in-tree/pod-spec';
import { requeuedByBind } from '../../../simulator/requeue';

const pod = (name: string, namespace: string, labels: Record<string, string>, spec: Record<string, unknown> = {}) =>
  parseSchedPod({ metadata: { name, namespace, labels }, spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c' }], ...spec } });

/** A failed cycle whose in-tree rejections came from `plugins` (one node each), or only the extender's when none. */
const failed = (...plugins: string[]): CycleResult =>
  ({ inTreeRejected: new Map(plugins.map((p) => [p, new Map([['reason', 1]])])), inTreeRejectedCount: plugins.length }) as unknown as CycleResult;

const affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'leader' } }, topologyKey: 'topology.kubernetes.io/zone' }] } };
const antiAffinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'guard' } }, topologyKey: 'kubernetes.io/hostname' }] } };
const spread = (whenUnsatisfiable: string) => [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable, labelSelector: { matchLabels: { app: 'web' } } }];

describe('requeuedByBind (kube-scheduler\'s queueing hints for an added assigned pod)', () => {
  it('InterPodAffinity: the bound pod matches the required affinity terms, in the term\'s namespaces', () => {
    const follower = pod('follower', 'ml', {}, { affinity });
    expect(requeuedByBind(follower, failed('InterPodAffinity'), pod('leader', 'ml', { app: 'leader' }))).toBe(true);
    expect(requeuedByBind(follower, failed('InterPodAffinity'), pod('other', 'ml', { app: 'other' }))).toBe(false);
    expect(requeuedByBind(follower, failed('InterPodAffinity'), pod('leader', 'web', { app: 'leader' }))).toBe(false);
  });

  it('InterPodAffinity: a new pod never lifts an anti-affinity conflict', () => {
    const shy = pod('shy', 'ml', {}, { affinity: antiAffinity });
    expect(requeuedByBind(shy, failed('InterPodAffinity'), pod('guard', 'ml', { app: 'guard' }))).toBe(false);
    expect(requeuedByBind(shy, failed('InterPodAffinity'), pod('other', 'ml', { app: 'other' }))).toBe(false);
  });

  it('PodTopologySpread: a pod in the same namespace that a DoNotSchedule constraint counts', () => {
    const web = pod('web-1', 'shop', { app: 'web' }, { topologySpreadConstraints: spread('DoNotSchedule') });
    expect(requeuedByBind(web, failed('PodTopologySpread'), pod('web-2', 'shop', { app: 'web' }))).toBe(true);
    expect(requeuedByBind(web, failed('PodTopologySpread'), pod('web-2', 'other', { app: 'web' }))).toBe(false);
    expect(requeuedByBind(web, failed('PodTopologySpread'), pod('db', 'shop', { app: 'db' }))).toBe(false);
    const soft = pod('web-1', 'shop', { app: 'web' }, { topologySpreadConstraints: spread('ScheduleAnyway') });
    expect(requeuedByBind(soft, failed('PodTopologySpread'), pod('web-2', 'shop', { app: 'web' }))).toBe(false);
  });

  it('a pod only the extender rejected is tried again on any bind; one short of resources or tainted out on none', () => {
    const any = pod('p', 'ml', {});
    const bound = pod('q', 'ml', { app: 'leader' });
    expect(requeuedByBind(any, failed(), bound)).toBe(true);
    expect(requeuedByBind(any, failed('NodeResourcesFit', 'TaintToleration'), bound)).toBe(false);
    // The plugin that rejected decides: a matching peer does not help a pod no node had room for.
    expect(requeuedByBind(pod('f', 'ml', {}, { affinity }), failed('NodeResourcesFit'), bound)).toBe(false);
  });
});
