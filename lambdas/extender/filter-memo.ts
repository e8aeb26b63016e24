import type { CycleState, NodeInfo, Snapshot } from '../scheduling';
import { metadataOf, stringField } from '../scheduling';

/** What /prioritize may take over from the /filter call before it. */
export interface FilterVerdicts {
  /** The filter's cycle: PreFilter done, nothing scored yet. */
  readonly state: CycleState;
  /** The nodes the filter kept, in its request's order. */
  readonly feasible: readonly NodeInfo[];
}

interface Remembered extends FilterVerdicts {
  readonly podKey: string;
  /** Which filter left it: only the latest one's verdicts are taken. */
  readonly generation: number;
}

/**
 * The last NodeNames /filter's verdicts, so the /prioritize that follows it
 * does not resolve and filter the same nodes again: kube-scheduler asks
 * prioritize about exactly the nodes the filter kept, for the same pod, right
 * after it. They are reused only when all of these hold, so nothing stale is
 * ever served:
 * - the same pod version: its UID and resourceVersion (any change to a pod
 *   bumps the resourceVersion; a pod without both is never reused);
 * - the same snapshot object (a refresh makes a new one, and the extender
 *   never changes a snapshot it serves);
 * - the request names exactly the nodes the filter kept, in the same order.
 * Only the latest filter's verdicts count, and only once: scoring writes its
 * own state into the cycle, and a second prioritize (a retry) starts a cycle
 * of its own as it always did.
 *
 * The verdicts hang off their snapshot in a WeakMap, so they never keep a
 * replaced snapshot (tens of MiB at 5,000 nodes) alive past the cache's
 * refresh.
 */
export class FilterMemo {
  private readonly bySnapshot = new WeakMap<Snapshot, Remembered>();
  private generation = 0;
  private lastPodKey: string | undefined;

  remember(pod: Readonly<Record<string, unknown>>, snapshot: Snapshot, verdicts: FilterVerdicts): void {
    const podKey = podVersionKey(pod);
    this.generation++;
    this.lastPodKey = podKey;
    if (podKey !== undefined) this.bySnapshot.set(snapshot, { podKey, generation: this.generation, ...verdicts });
  }

  /** The filter's verdicts if they are this request's; `current` is only asked when the pod matches. */
  async take(pod: Readonly<Record<string, unknown>>, names: readonly string[], current: () => Promise<Snapshot>): Promise<(FilterVerdicts & { readonly snapshot: Snapshot }) | undefined> {
    const podKey = podVersionKey(pod);
    if (podKey === undefined || podKey !== this.lastPodKey) return undefined;
    let snapshot: Snapshot;
    try {
      snapshot = await current();
    } catch {
      // The caller's own lookup reports the cache's failure.
      return undefined;
    }
    const last = this.bySnapshot.get(snapshot);
    if (last === undefined || last.generation !== this.generation || last.podKey !== podKey || !namedAs(last.feasible, names)) return undefined;
    this.bySnapshot.delete(snapshot);
    this.generation++;
    return { state: last.state, feasible: last.feasible, snapshot };
  }
}

function podVersionKey(pod: Readonly<Record<string, unknown>>): string | undefined {
  const metadata = metadataOf(pod);
  const uid = stringField(metadata.uid);
  const version = stringField(metadata.resourceVersion);
  // A NUL cannot occur in either, so the key is unambiguous.
  return uid && version ? `${uid}\u0000${version}` : undefined;
}

/** Whether `nodes` are exactly the nodes `names` names, in that order. */
function namedAs(nodes: readonly NodeInfo[], names: readonly string[]): boolean {
  if (nodes.length !== names.length) return false;
  for (let i = 0; i < nodes.length; i++) if ((nodes[i] as NodeInfo).name !== names[i]) return false;
  return true;
}
