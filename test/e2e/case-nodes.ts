// The e2e files that build one node per case (real-cluster-nodes,
// dra-extended-resource): each node carries its case's label, so a pod's
// nodeSelector can aim it at one case, and a node is named by its key.
import type { GpuNode, GpuNodeSpec, NodeClients } from '../../local/nodes/gpu-nodes';
import { createGpuNode } from '../../local/nodes/gpu-nodes';

export const CASE_LABEL = 'e2e.gpu-scheduling/case';

/** A nodeSelector for the nodes of one case. */
export const inCase = (caseName: string): Record<string, string> => ({ [CASE_LABEL]: caseName });

/** A GPU node of `caseName`: `spec` with the case's label added. */
export function createCaseNode(clients: NodeClients, caseName: string, spec: GpuNodeSpec): Promise<GpuNode> {
  return createGpuNode(clients, { ...spec, labels: { ...inCase(caseName), ...spec.labels } });
}

/** The name of the node created under `key`; throws when setup did not create it. */
export function createdNodeName<K extends string>(nodes: Readonly<Record<K, GpuNode | undefined>>, key: K): string {
  const node = nodes[key];
  if (!node) throw new Error(`node ${key} was not created`);
  return node.name;
}
