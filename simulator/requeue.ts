// kube-scheduler's queueing hints for an assigned pod being added
// (framework/plugins/*/EventsToRegister): a pod that failed is tried again
// only when one of the plugins that rejected it says the new pod may help.
import { selectorMatches } from '../lambdas/scheduling/label-selector';
import type { CycleResult } from './kube-scheduler-cycle';
import type { SchedPod } from './in-tree/pod-spec';
import { termMatches } from './in-tree/pod-spec';

/**
 * Whether binding `bound` puts `pod`, which failed with `result`, back in
 * the active queue:
 * - InterPodAffinity: `bound` matches all of the pod's required affinity
 *   terms (it may be the peer it waits for); a new pod never lifts an
 *   anti-affinity conflict.
 * - PodTopologySpread: `bound` is in the pod's namespace and matches one of
 *   its DoNotSchedule constraints' selectors (it may raise the least-filled
 *   domain).
 * - Only the extender rejected it: no plugin to ask, so every event does.
 * A node short of resources, tainted or unmatched stays so when a pod is added.
 */
export function requeuedByBind(pod: SchedPod, result: CycleResult, bound: SchedPod): boolean {
  if (result.inTreeRejectedCount === 0) return true;
  if (result.inTreeRejected.has('InterPodAffinity')) {
    const terms = pod.requiredAffinity;
    if (terms.length > 0 && terms.every((t) => termMatches(t, bound))) return true;
  }
  if (result.inTreeRejected.has('PodTopologySpread') && bound.namespace === pod.namespace) {
    if (pod.spread.some((c) => c.hard && selectorMatches(c.selector, bound.labels))) return true;
  }
  return false;
}
