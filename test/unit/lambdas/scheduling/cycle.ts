import type { FilterPlugin, FilterRejection, FilterStatus, KubeNode, KubePod, NodeInfo, Plugin, RejectedNode, ScorePlugin } from '../../../../lambdas/scheduling';
import { Profile, parsePodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';

/** Runs one plugin the way a profile would, for plugin-level tests. */
export function runPlugin(plugin: Plugin, nodes: readonly KubeNode[], pod: KubePod, bound: readonly KubePod[] = []) {
  const snapshot = snapshotFromKubernetes(nodes, bound);
  const requirements = parsePodRequirements(pod);
  const filter = isFilterPlugin(plugin) ? plugin : undefined;
  const scorer = isScorePlugin(plugin) ? plugin : undefined;
  const profile = new Profile({ name: 'test', filters: filter ? [filter] : [], scorers: scorer ? [{ plugin: scorer, weight: 1 }] : [] });
  const state = profile.startCycle(snapshot, requirements);
  scorer?.preScore?.(state, requirements, snapshot.nodes);
  return {
    snapshot,
    requirements,
    state,
    filter(name: string): FilterStatus {
      if (filter === undefined) throw new Error(`${plugin.name} has no filter`);
      return filter.filter(state, requirements, node(snapshot.getNode(name), name));
    },
    score(name: string): number {
      return scorer?.score(state, requirements, node(snapshot.getNode(name), name)) ?? Number.NaN;
    },
  };
}

function isFilterPlugin(plugin: Plugin): plugin is FilterPlugin {
  return typeof (plugin as Partial<FilterPlugin>).filter === 'function';
}

function isScorePlugin(plugin: Plugin): plugin is ScorePlugin {
  return typeof (plugin as Partial<ScorePlugin>).score === 'function';
}

function node(found: NodeInfo | undefined, name: string): NodeInfo {
  if (found === undefined) throw new Error(`test setup: no node ${name}`);
  return found;
}

/** Rejected nodes by status object, groups in order of first appearance, each in node order: what Profile.filterGrouped gives. */
export function groupByRejection(rejected: readonly RejectedNode[]): Map<FilterRejection, NodeInfo[]> {
  const groups = new Map<FilterRejection, NodeInfo[]>();
  for (const { node, status } of rejected) groups.set(status, [...(groups.get(status) ?? []), node]);
  return groups;
}
