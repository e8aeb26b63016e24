import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { JsonPatchOperation, NodeGateway } from '../kube';
import { isKubeInvalid, isKubeNotFound } from '../kube';
import { NODE_TAINT } from '../scheduling/keys';

/** The start-up taint GPU node groups may carry until the labeler has labelled them. */
export const STARTUP_TAINT: Readonly<Required<Pick<V1Taint, 'key' | 'value' | 'effect'>>> = {
  key: NODE_TAINT.gpuLabelsPending,
  value: 'true',
  effect: 'NoSchedule',
};

/**
 * Karpenter's taint on a node it launched and has not registered yet
 * (sigs.k8s.io/karpenter pkg/apis/v1/taints.go). Its registration lifts it
 * and, in the same patch, merges the NodePool's startup taints onto the node
 * (nodeclaim/lifecycle/registration.go, syncNode): a start-up taint lifted
 * before that comes back, and stays until the next scheduled reconcile.
 */
export const KARPENTER_UNREGISTERED_TAINT_KEY = 'karpenter.sh/unregistered';

/** Whether Karpenter has yet to register this node: lifting our taint now would not last. */
export function awaitsKarpenterRegistration(node: V1Node): boolean {
  return (node.spec?.taints ?? []).some((taint) => taint.key === KARPENTER_UNREGISTERED_TAINT_KEY);
}

/** A re-read and retry per lost race; three races in a row on one node's taints means something is fighting us. */
const MAX_ATTEMPTS = 3;

/**
 * The JSON Patch that removes our taint(s) from this view of the node, or
 * undefined when it carries none. Every removal is guarded by a `test` of the
 * entry's key at that index: if kubelet or another controller changed the
 * list since we read it, the API server applies nothing (422) instead of
 * removing someone else's taint. Indices go from the end so earlier removals
 * do not shift later ones.
 */
export function startupTaintRemoval(taints: readonly V1Taint[] | undefined): JsonPatchOperation[] | undefined {
  const indices = (taints ?? []).flatMap((taint, index) => (taint.key === STARTUP_TAINT.key ? [index] : []));
  if (indices.length === 0) return undefined;
  return indices.reverse().flatMap((index): JsonPatchOperation[] => [
    { op: 'test', path: `/spec/taints/${index}/key`, value: STARTUP_TAINT.key },
    { op: 'remove', path: `/spec/taints/${index}` },
  ]);
}

/**
 * Removes our start-up taint and nothing else. `node` is the caller's latest
 * view of it (what the label patch returned, or the listed object); on a lost
 * race the node is read again and the removal recomputed from that. A node
 * Karpenter has not registered yet keeps it (awaitsKarpenterRegistration):
 * the caller waits for the registration, or a later run lifts it.
 * Returns whether a taint of ours was removed.
 */
export async function removeStartupTaint(nodes: NodeGateway, node: V1Node): Promise<boolean> {
  const name = node.metadata?.name ?? '';
  let current: V1Node | undefined = node;
  for (let attempt = 1; ; attempt++) {
    if (current !== undefined && awaitsKarpenterRegistration(current)) return false;
    const operations = startupTaintRemoval(current?.spec?.taints);
    if (operations === undefined) return false;
    try {
      await nodes.jsonPatchNode(name, operations);
      return true;
    } catch (error) {
      // Deleted meanwhile (Spot interruption, consolidation): no taint left to lift.
      if (isKubeNotFound(error)) return false;
      if (!isKubeInvalid(error) || attempt >= MAX_ATTEMPTS) throw error;
      current = await nodes.readNode(name);
    }
  }
}
