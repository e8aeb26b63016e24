import { describe, expect, it } from 'vitest';
import { boundPods, fullNodesArgs, gpuNode, gpuNodes, largestFullNodesCount } from '../../../../bench/perf/extender-fixtures';
import { nodeInfoFromKubernetes, podInfoFromKubernetes } from '../../../../lambdas/scheduling';

describe('benchmark fixtures', () => {
  it('finds the largest full-Nodes request under a byte limit', () => {
    const limit = 64 * 1024;
    const n = largestFullNodesCount(limit, 100);
    const nodes = gpuNodes(n + 1);
    expect(Buffer.byteLength(fullNodesArgs(nodes.slice(0, n)))).toBeLessThanOrEqual(limit);
    expect(Buffer.byteLength(fullNodesArgs(nodes))).toBeGreaterThan(limit);
  });

  it('is deterministic and readable by the scheduling library', () => {
    expect(gpuNode(7)).toEqual(gpuNode(7));
    const info = nodeInfoFromKubernetes(gpuNode(0));
    expect(info?.gpuCount).toBe(8);
    expect(info?.zone).toBe('us-east-1a');
  });

  it('never binds more GPUs to a node than half its capacity', () => {
    const nodes = gpuNodes(10);
    const perNode = new Map<string, number>();
    for (const pod of boundPods(nodes, 1000)) {
      const info = podInfoFromKubernetes(pod);
      if (info) perNode.set(info.nodeName, (perNode.get(info.nodeName) ?? 0) + info.demand.gpuCount);
    }
    for (const node of nodes) {
      const info = nodeInfoFromKubernetes(node);
      expect(perNode.get(info?.name ?? '') ?? 0).toBeLessThanOrEqual((info?.gpuCount ?? 0) / 2);
    }
  });
});
