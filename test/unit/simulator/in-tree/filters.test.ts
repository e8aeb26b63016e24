import { describe, expect, it } from 'vitest';
import { ClusterState, parseSchedNode } from '../../../../simulator/in-tree/cluster';
import { filterNode, insufficientResources, pluginOfReason, preFilter } from '../../../../simulator/in-tree/filters';
import { parseSchedPod } from '../../../../simulator/in-tree/pod-spec';
import { gpuNode, gpuPod } from '../../lambdas/scheduling/kube-objects';

type Json = Record<string, unknown>;
const withSpec = (object: object, spec: Json): Json => ({ ...object, spec: { ...(object as { spec?: Json }).spec, ...spec } });

function verdicts(nodes: readonly object[], bound: readonly object[], pending: object): Record<string, string> {
  const cluster = new ClusterState(nodes.map(parseSchedNode));
  for (const raw of bound) {
    const pod = parseSchedPod(raw);
    cluster.bind(pod, pod.nodeName as string);
  }
  const cycle = preFilter(cluster, parseSchedPod(pending));
  return Object.fromEntries(cluster.nodes.map((n) => {
    const r = filterNode(cycle, n);
    return [n.node.name, r === undefined ? 'fits' : `${r.plugin}: ${r.reasons.join(' + ')}`];
  }));
}

describe('the gpu-scheduler profile\'s in-tree filters', () => {
  it('a taint the pod does not tolerate, a cordon and a node selector each reject with kube-scheduler\'s words', () => {
    const nodes = [
      withSpec(gpuNode('tainted'), { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }),
      withSpec(gpuNode('cordoned'), { unschedulable: true }),
      gpuNode('other-zone', { zone: 'b' }),
      gpuNode('ok', { zone: 'a' }),
    ];
    const pod = withSpec(gpuPod('p', { gpus: 1 }), { nodeSelector: { 'topology.kubernetes.io/zone': 'a' } });
    expect(verdicts(nodes, [], pod)).toEqual({
      tainted: 'TaintToleration: node(s) had untolerated taint(s)',
      cordoned: 'NodeUnschedulable: node(s) were unschedulable',
      'other-zone': "NodeAffinity: node(s) didn't match Pod's node affinity/selector",
      ok: 'fits',
    });
    const tolerating = withSpec(gpuPod('p', { gpus: 1 }), { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] });
    expect(verdicts(nodes, [], tolerating).tainted).toBe('fits');
  });

  it('NodeResourcesFit names every short resource, the GPU count included, and counts pods', () => {
    const cluster = new ClusterState([parseSchedNode(gpuNode('n', { gpus: 2, cpu: '4', pods: '1' }))]);
    const node = cluster.nodes[0]!;
    expect(insufficientResources(parseSchedPod(gpuPod('p', { gpus: 3, cpu: '8' })), node)).toEqual(['Insufficient cpu', 'Insufficient nvidia.com/gpu']);
    cluster.bind(parseSchedPod(gpuPod('b', { nodeName: 'n' })), 'n');
    expect(insufficientResources(parseSchedPod(gpuPod('p', { gpus: 1 })), node)).toEqual(['Too many pods']);
  });

  it('NodePorts: the same host port and protocol conflict, another protocol does not', () => {
    const ported = (name: string, protocol: string, nodeName?: string): object =>
      withSpec(gpuPod(name, nodeName === undefined ? {} : { nodeName }), { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080, protocol }] }] });
    const nodes = [gpuNode('a'), gpuNode('b')];
    expect(verdicts(nodes, [ported('x', 'TCP', 'a')], ported('p', 'TCP'))).toEqual({ a: "NodePorts: node(s) didn't have free ports for the requested pod ports", b: 'fits' });
    expect(verdicts(nodes, [ported('x', 'UDP', 'a')], ported('p', 'TCP')).a).toBe('fits');
  });

  it('required anti-affinity of the pod and of existing pods, and required affinity with the first-pod exception', () => {
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z1' }), gpuNode('c', { zone: 'z2' })];
    const zoneTerm = (app: string) => [{ labelSelector: { matchLabels: { app } }, topologyKey: 'topology.kubernetes.io/zone' }];
    const web = gpuPod('web-1', { labels: { app: 'web' }, nodeName: 'a' });
    const anti = withSpec(gpuPod('web-2', { labels: { app: 'web' } }), { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneTerm('web') } } });
    expect(verdicts(nodes, [web], anti)).toEqual({ a: "InterPodAffinity: node(s) didn't match pod anti-affinity rules", b: "InterPodAffinity: node(s) didn't match pod anti-affinity rules", c: 'fits' });
    // The bound pod's own anti-affinity keeps a matching newcomer out of its zone.
    const guard = withSpec(gpuPod('guard', { labels: { app: 'guard' }, nodeName: 'c' }), { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneTerm('web') } } });
    expect(verdicts(nodes, [guard], gpuPod('web-3', { labels: { app: 'web' } })).c).toBe("InterPodAffinity: node(s) didn't satisfy existing pods anti-affinity rules");
    const follower = withSpec(gpuPod('cache', { labels: { app: 'cache' } }), { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneTerm('web') } } });
    expect(verdicts(nodes, [web], follower)).toEqual({ a: 'fits', b: 'fits', c: "InterPodAffinity: node(s) didn't match pod affinity rules" });
    // No pod matches anywhere, but the pod matches its own term: it may start the group.
    const first = withSpec(gpuPod('db-1', { labels: { app: 'db' } }), { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: zoneTerm('db') } } });
    expect(Object.values(verdicts(nodes, [web], first))).toEqual(['fits', 'fits', 'fits']);
  });

  it('PodTopologySpread DoNotSchedule: skew over maxSkew and a missing topology label reject', () => {
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z2' }), gpuNode('unlabelled')];
    const spread = (name: string): Json =>
      withSpec(gpuPod(name, { labels: { app: 'w' } }), {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } } }],
      });
    expect(verdicts(nodes, [gpuPod('w-0', { labels: { app: 'w' }, nodeName: 'a' })], spread('w-1'))).toEqual({
      a: "PodTopologySpread: node(s) didn't match pod topology spread constraints",
      b: 'fits',
      unlabelled: "PodTopologySpread: node(s) didn't match pod topology spread constraints (missing required label)",
    });
  });

  it('attributes kube-scheduler reasons to their plugins', () => {
    expect(pluginOfReason('Insufficient nvidia.com/gpu')).toBe('NodeResourcesFit');
    expect(pluginOfReason('node(s) had untolerated taint(s)')).toBe('TaintToleration');
    expect(pluginOfReason('node(s) had no available volume zone')).toBe('another in-tree plugin');
  });
});
