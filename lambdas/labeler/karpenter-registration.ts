import type { V1Node } from '@kubernetes/client-node';
import type { Clock } from './node-registration';
import { awaitsKarpenterRegistration } from './startup-taint';

/**
 * How often an invocation looks again at a node Karpenter has not
 * registered yet. Karpenter registers a node as soon as its watch sees it
 * (about a second), and only the few invocations whose node has just joined
 * wait here, so a short interval costs the API server little and puts the
 * start-up taint's removal right after the registration.
 */
export const KARPENTER_REGISTRATION_POLL_MS = 250;

/**
 * The node once Karpenter has registered it (see awaitsKarpenterRegistration),
 * read again every KARPENTER_REGISTRATION_POLL_MS until then or `deadline`
 * (a clock time); the node as it is when the deadline passes, or undefined
 * when it was deleted meanwhile. A node Karpenter does not manage returns at once.
 */
export async function waitForKarpenterRegistration(readNode: () => Promise<V1Node | undefined>, node: V1Node, deadline: number, clock: Clock): Promise<V1Node | undefined> {
  let current: V1Node | undefined = node;
  while (current !== undefined && awaitsKarpenterRegistration(current)) {
    const remaining = deadline - clock.now();
    if (remaining <= 0) break;
    await clock.sleep(Math.min(KARPENTER_REGISTRATION_POLL_MS, remaining));
    current = await readNode();
  }
  return current;
}
