import type { V1Pod } from '@kubernetes/client-node';
import { POD_ANNOTATION, POD_LABEL } from '../scheduling/keys';

/**
 * Karpenter's pod-level block on voluntary disruption: while an active pod
 * carries it ("true", or a duration since the pod started), Karpenter neither
 * consolidates nor drifts its node (sigs.k8s.io/karpenter v1.15
 * pkg/utils/pod IsDoNotDisruptActive). A terminal (Succeeded, Failed) or
 * terminating pod never blocks: IsDisruptable is `!IsActive(pod) || ...`.
 */
export const KARPENTER_DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';

/** The owner label's value on pods whose do-not-disrupt the reconciler wrote. */
export const DO_NOT_DISRUPT_OWNER = 'reconciler';

/** Server-side selector of the pods carrying our do-not-disrupt. */
export const OWNED_DO_NOT_DISRUPT_SELECTOR = `${POD_LABEL.doNotDisruptOwner}=${DO_NOT_DISRUPT_OWNER}`;

/** One merge patch of a pod's metadata: the keys given change, `null` removes one. */
export interface PodMetadataPatch {
  readonly annotations: Readonly<Record<string, string | null>>;
  readonly labels: Readonly<Record<string, string | null>>;
}

export interface DoNotDisruptChange {
  readonly namespace: string;
  readonly name: string;
  readonly kind: 'set' | 'clear';
  readonly patch: PodMetadataPatch;
}

const SET: PodMetadataPatch = {
  annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' },
  labels: { [POD_LABEL.doNotDisruptOwner]: DO_NOT_DISRUPT_OWNER },
};

/**
 * What an opted-in pod (`gpu.nvidia.com/do-not-disrupt: "true"`) needs:
 * - bound to a node, not finished, no do-not-disrupt yet: set it, with our
 *   owner label;
 * - ours (owner label) and finished, or no longer opted in: clear it. The
 *   annotation goes only while it still reads "true": a value someone
 *   changed since is theirs now, and only our label goes;
 * - terminating: nothing (Karpenter ignores terminating pods, and the pod
 *   is about to be gone);
 * - a do-not-disrupt the pod came with (no owner label): never touched.
 */
export function doNotDisruptChange(pod: V1Pod): DoNotDisruptChange | undefined {
  const namespace = pod.metadata?.namespace;
  const name = pod.metadata?.name;
  if (!namespace || !name) return undefined;
  const annotations = pod.metadata?.annotations ?? {};
  const owned = pod.metadata?.labels?.[POD_LABEL.doNotDisruptOwner] === DO_NOT_DISRUPT_OWNER;
  const current = annotations[KARPENTER_DO_NOT_DISRUPT_ANNOTATION];
  const optedIn = annotations[POD_ANNOTATION.doNotDisrupt]?.trim().toLowerCase() === 'true';
  const phase = pod.status?.phase;
  const finished = phase === 'Succeeded' || phase === 'Failed';
  const terminating = pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;

  if (owned && (finished || (!optedIn && !terminating))) {
    return {
      namespace,
      name,
      kind: 'clear',
      patch: {
        annotations: current === 'true' ? { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null } : {},
        labels: { [POD_LABEL.doNotDisruptOwner]: null },
      },
    };
  }
  if (optedIn && !finished && !terminating && (pod.spec?.nodeName ?? '') !== '' && current === undefined) {
    return { namespace, name, kind: 'set', patch: SET };
  }
  return undefined;
}

/** The changes for one run's pods (unfinished ones plus our finished ones), each pod once. */
export function doNotDisruptChanges(pods: readonly V1Pod[]): DoNotDisruptChange[] {
  const seen = new Set<string>();
  const changes: DoNotDisruptChange[] = [];
  for (const pod of pods) {
    const change = doNotDisruptChange(pod);
    if (change === undefined) continue;
    const key = `${change.namespace}/${change.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    changes.push(change);
  }
  return changes;
}
