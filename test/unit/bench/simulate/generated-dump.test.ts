import { describe, expect, it } from 'vitest';
import { generateDump } from '../../../../bench/simulate/generated-dump';

describe('generateDump', () => {
  it('is the same dump for the same seed and another for another seed', () => {
    expect(generateDump({ nodes: 20, pods: 100, seed: 7 })).toEqual(generateDump({ nodes: 20, pods: 100, seed: 7 }));
    expect(generateDump({ nodes: 20, pods: 100, seed: 8 })).not.toEqual(generateDump({ nodes: 20, pods: 100, seed: 7 }));
  });

  it('holds what the simulator must model: taints, cordons, constraints, host ports, other schedulers, within the nodes\' capacity', () => {
    const { nodes, pods } = generateDump({ nodes: 200, pods: 2000, seed: 3 });
    const text = JSON.stringify({ nodes, pods });
    for (const feature of ['"unschedulable":true', 'PreferNoSchedule', '"nvidia.com/gpu","value":"true"', 'nodeSelector', 'preferredDuringSchedulingIgnoredDuringExecution', 'podAntiAffinity', 'topologySpreadConstraints', 'hostPort', 'default-scheduler']) {
      expect(text).toContain(feature);
    }
    const pending = pods.filter((p) => (p.spec as { nodeName?: string }).nodeName === undefined);
    expect(pending).toHaveLength(200);
    // Bound pods never ask for more GPUs than their node has.
    const gpusOf = (name: string) => Number((nodes.find((n) => (n.metadata as { name: string }).name === name)?.status as { allocatable: Record<string, string> }).allocatable['nvidia.com/gpu'] ?? 0);
    const used = new Map<string, number>();
    for (const pod of pods) {
      const spec = pod.spec as { nodeName?: string; containers: { resources: { limits: Record<string, string> } }[] };
      if (spec.nodeName === undefined) continue;
      used.set(spec.nodeName, (used.get(spec.nodeName) ?? 0) + Number(spec.containers[0]?.resources.limits['nvidia.com/gpu'] ?? 0));
    }
    for (const [node, gpus] of used) expect(gpus).toBeLessThanOrEqual(gpusOf(node));
  });
});
