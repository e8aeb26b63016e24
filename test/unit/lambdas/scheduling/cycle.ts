import type { CycleState, FilterStatus, KubeNode, KubePod, NodeInfo, Plugin, PodRequirements } from '../../../../lambdas/scheduling';
import { Profile, parsePodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';

/** Runs one plugin the way a profile would, for plugin-level tests. */
export function runPlugin(plugin: Plugin, nodes: readonly KubeNode[], pod: KubePod, bound: readonly KubePod[] = []) {
  const snapshot = snapshotFromKubernetes(nodes, bound);
  const requirements = parsePodRequirements(pod);
  const profile = new Profile({ name: 'test', filters: [plugin], scorers: plugin.score ? [{ plugin, weight: 1 }] : [] });
  const state = profile.startCycle(snapshot, requirements);
  plugin.preScore?.(state, requirements, snapshot.nodes);
  return {
    snapshot,
    requirements,
    state,
    filter(name: string): FilterStatus {
      return call(plugin, state, requirements, node(snapshot.getNode(name), name));
    },
    score(name: string): number {
      return plugin.score?.(state, requirements, node(snapshot.getNode(name), name)) ?? Number.NaN;
    },
  };
}

function node(found: NodeInfo | undefined, name: string): NodeInfo {
  if (found === undefined) throw new Error(`test setup: no node ${name}`);
  return found;
}

function call(plugin: Plugin, state: CycleState, pod: PodRequirements, n: NodeInfo): FilterStatus {
  if (plugin.filter === undefined) throw new Error(`${plugin.name} has no filter`);
  return plugin.filter(state, pod, n);
}
