// The Kueue objects the stack derives from its own GPU capacity: one
// ResourceFlavor per GPU instance type its node groups and Karpenter NodePools
// name (with their taints as tolerations) and the network Topology.
import type { AppConfig, NodeTaint, TaintEffectName } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { kueueResourceFlavor, kueueTopology, type FlavorToleration } from './kueue-objects';
import { KUEUE_TOPOLOGY_NAME } from './kueue-release';

const EFFECT: Readonly<Record<TaintEffectName, FlavorToleration['effect']>> = { NO_SCHEDULE: 'NoSchedule', PREFER_NO_SCHEDULE: 'PreferNoSchedule', NO_EXECUTE: 'NoExecute' };

interface GpuPool {
  readonly instanceTypes: readonly string[];
  readonly taints: readonly NodeTaint[];
}

/** The GPU pools of a new cluster; an existing cluster's are not the stack's to know (docs/kueue.md says how to write flavors). */
function gpuPools(config: AppConfig): GpuPool[] {
  if (config.cluster.mode !== 'new') return [];
  const groups = config.cluster.gpuNodeGroups.map((group) => ({ instanceTypes: group.instanceTypes, taints: group.taints }));
  // A NodePool given by families only has no instance types to name here.
  const pools = config.cluster.gpuCapacity === 'karpenter' ? config.cluster.karpenter.nodePools.map((pool) => ({ instanceTypes: pool.instanceTypes, taints: pool.taints })) : [];
  return [...groups, ...pools];
}

/**
 * The Topology and one flavor per instance type (the first pool naming a type
 * gives its tolerations; pools of one type should taint alike). Every flavor
 * uses the Topology, so jobs may ask for a network block
 * (`kueue.x-k8s.io/podset-required-topology`).
 */
export function kueueStackObjects(config: AppConfig): KubernetesObject[] {
  const flavors = new Map<string, KubernetesObject>();
  for (const pool of gpuPools(config)) {
    const tolerations = pool.taints.map((t) => ({ key: t.key, ...(t.value === '' ? {} : { value: t.value }), effect: EFFECT[t.effect] }));
    for (const instanceType of pool.instanceTypes) {
      if (!flavors.has(instanceType)) flavors.set(instanceType, kueueResourceFlavor({ instanceType, topologyName: KUEUE_TOPOLOGY_NAME, tolerations }));
    }
  }
  return [kueueTopology(KUEUE_TOPOLOGY_NAME, false), ...flavors.values()];
}
