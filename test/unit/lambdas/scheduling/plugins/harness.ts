import type { ScorePlugin } from '../../../../../lambdas/scheduling/framework';
import { NodeInfo } from '../../../../../lambdas/scheduling/node-info';
import type { NodeSpec } from '../../../../../lambdas/scheduling/node-info';
import type { PodRequirements, PodSpecInput } from '../../../../../lambdas/scheduling/pod-requirements';
import { createPodRequirements } from '../../../../../lambdas/scheduling/pod-requirements';
import { Profile } from '../../../../../lambdas/scheduling/profile';
import { Snapshot } from '../../../../../lambdas/scheduling/snapshot';

/** A node whose devices already have the given free shares (1000 = whole GPU free). */
export function nodeWithFree(name: string, free: readonly number[], extra: Partial<NodeSpec> = {}, usedCpuMilli = 0): NodeInfo {
  const node = new NodeInfo({ name, gpuCount: free.length, cpuMilli: 64_000, memoryBytes: 256 * 2 ** 30, gpuModel: 'T4', ...extra });
  free.forEach((f, device) => {
    if (f < 1000) node.addPod(podInfo(`${name}-load-${device}`, name, 1, 1000 - f), [device]);
  });
  if (usedCpuMilli > 0) node.addPod({ ...podInfo(`${name}-cpu`, name, 0, 1000), demand: { cpuMilli: usedCpuMilli, memoryBytes: 0, gpuCount: 0, gpuMilli: 1000 } });
  return node;
}

function podInfo(name: string, nodeName: string, gpuCount: number, gpuMilli: number) {
  return { uid: name, namespace: 'default', name, labels: {}, nodeName, demand: { cpuMilli: 0, memoryBytes: 0, gpuCount, gpuMilli } };
}

export function pod(input: Omit<PodSpecInput, 'name'> & { name?: string }): PodRequirements {
  return createPodRequirements({ name: 'p', cpuMilli: 1000, ...input });
}

/** Scores every node with one plugin the way a Profile does (preScore, score, normalize). */
export function scoresOf(plugin: ScorePlugin, nodes: readonly NodeInfo[], requirements: PodRequirements): Record<string, number> {
  const profile = new Profile({ name: 'test', filters: [], scorers: [{ plugin, weight: 1 }] });
  const snapshot = new Snapshot(nodes);
  const state = profile.startCycle(snapshot, requirements);
  const scores = profile.score(state, nodes);
  return Object.fromEntries(nodes.map((n, i) => [n.name, scores[i] ?? Number.NaN]));
}

export function cycle(plugin: ScorePlugin, nodes: readonly NodeInfo[], requirements: PodRequirements) {
  const profile = new Profile({ name: 'test', filters: [], scorers: [{ plugin, weight: 1 }] });
  const snapshot = new Snapshot(nodes);
  const state = profile.startCycle(snapshot, requirements);
  profile.score(state, nodes);
  return { profile, snapshot, state };
}
