import type { NodeInfo } from '../lambdas/scheduling/node-info';
import type { Snapshot } from '../lambdas/scheduling/snapshot';

/**
 * What the tables show of a node beside its name: on EKS the name is the
 * instance's private DNS name, which says nothing of what the node is.
 */
const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
/** Karpenter's NodePool, else the managed node group (EKS), else none. */
const POOL_LABELS = ['karpenter.sh/nodepool', 'eks.amazonaws.com/nodegroup'] as const;

export interface NodeUsage {
  readonly node: string;
  /** `node.kubernetes.io/instance-type`, when the node has it. */
  readonly instanceType?: string;
  /** The GPU model the extender reads for the node (any labeller's), when it has GPUs. */
  readonly gpuModel?: string;
  readonly zone?: string;
  /** The Karpenter NodePool or managed node group that launched it. */
  readonly pool?: string;
  readonly gpus: number;
  readonly freeWholeGpus: number;
  readonly pods: number;
}

export function nodeUsage(node: NodeInfo): NodeUsage {
  const instanceType = node.labels[INSTANCE_TYPE_LABEL];
  const pool = POOL_LABELS.map((key) => node.labels[key]).find((value) => value !== undefined);
  return {
    node: node.name,
    ...(instanceType === undefined ? {} : { instanceType }),
    ...(node.gpuModelName === '' ? {} : { gpuModel: node.gpuModelName }),
    ...(node.zone === undefined ? {} : { zone: node.zone }),
    ...(pool === undefined ? {} : { pool }),
    gpus: node.gpuCount,
    freeWholeGpus: node.freeWholeGpus,
    pods: node.pods.length,
  };
}

export function nodesUsage(snapshot: Snapshot): NodeUsage[] {
  return snapshot.nodes.map(nodeUsage);
}
