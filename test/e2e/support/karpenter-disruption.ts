// Waiting on Karpenter to take a node away, and, when it does not, what it
// said about disruption: each NodeClaim's conditions, its events on the
// nodes, and its disruption controllers' log lines. A timeout then reads as
// Karpenter's own reasons in the test output, not only "timed out".
import { readFileSync } from 'node:fs';
import type { CoreV1Api } from '@kubernetes/client-node';
import { errorMessage } from '../../../lambdas/common/error-message';
import type { Karpenter } from '../../../local/addons/karpenter';
import { waitFor } from '../../../local/common/wait';
import { describeEvents, fromKarpenter } from './karpenter-events';

/**
 * How long Karpenter may take: a pass that found nothing to do is repeated
 * after a change it watches or after five minutes (ConsolidationState in
 * sigs.k8s.io/karpenter `pkg/controllers/state/cluster.go`), then 15 s of
 * command validation and the drain.
 */
export const KARPENTER_CONSOLIDATION_TIMEOUT_MS = 360_000;

/**
 * How long a Karpenter event may take to appear: its recorder drops an event
 * whose reason and node match one published in the last two minutes, whatever
 * the message (`defaultDedupeTimeout`, dedupe key reason + node UID, in
 * sigs.k8s.io/karpenter `pkg/events/recorder.go`). A DisruptionBlocked "Node is
 * nominated for a pending pod" at launch hides a later DisruptionBlocked naming
 * a do-not-disrupt pod until then; the rest is a pass or two.
 */
export const KARPENTER_EVENT_TIMEOUT_MS = 180_000;

const DISRUPTION_LOG = /"controller":"(disruption|nodeclaim\.disruption|disruption\.queue)"|waiting on sync/;
const CONTROLLER_START = /"message":"Starting (EventSource|Controller|workers)"/;

/** Karpenter's disruption state for `nodes`, for a failure message. */
export async function disruptionReport(core: CoreV1Api, karpenter: Karpenter, named: readonly string[]): Promise<string> {
  const nodes = [...new Set(named)];
  const claims = (await karpenter.listNodeClaims()).map((claim) => {
    const conditions = (claim.status?.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`).join(', ');
    return `${claim.metadata.name} on ${claim.status?.nodeName ?? 'no node'}: ${conditions}`;
  });
  const events = (await core.listEventForAllNamespaces({ fieldSelector: 'involvedObject.kind=Node' })).items.filter(
    (e) => fromKarpenter(e) && nodes.includes(e.involvedObject.name ?? ''),
  );
  let log: string[] = [];
  try {
    log = readFileSync(karpenter.process.logFile, 'utf8').split('\n').filter((line) => DISRUPTION_LOG.test(line) && !CONTROLLER_START.test(line)).slice(-15);
  } catch (error) {
    log = [`(Karpenter's log unreadable: ${errorMessage(error)})`];
  }
  return [`NodeClaims:\n${claims.join('\n') || '(none)'}`, `Karpenter's events on ${nodes.join(', ')}:\n${events.map((e) => `${e.involvedObject.name ?? '?'} ${describeEvents([e])}`).join('\n') || '(none)'}`, `Karpenter's disruption log:\n${log.join('\n') || '(none)'}`].join('\n');
}

/**
 * For a test that expects Karpenter to remove `gone` and keep `kept`: when the
 * nodes `left` say it did not, why (the nodes and Karpenter's own account);
 * undefined when it did, so a passing test reads nothing.
 */
export async function wrongPickReport(core: CoreV1Api, karpenter: Karpenter, { kept, gone }: { kept: string; gone: string }, left: readonly string[]): Promise<string | undefined> {
  if (left.includes(kept) && !left.includes(gone)) return undefined;
  return `expected ${gone} removed and ${kept} kept; left ${left.join(', ')}\n${await disruptionReport(core, karpenter, [kept, gone, ...left])}`;
}

/** Waits until Karpenter has removed any of `nodes`; the names of the pool's nodes left. */
export async function waitForKarpenterToRemove(core: CoreV1Api, karpenter: Karpenter, nodes: readonly string[]): Promise<string[]> {
  return waitFor(
    `Karpenter to remove ${nodes.join(' or ')}`,
    async () => {
      const names = (await karpenter.listNodes()).map((n) => n.metadata?.name ?? '');
      return nodes.every((node) => names.includes(node)) ? undefined : names;
    },
    { timeoutMs: KARPENTER_CONSOLIDATION_TIMEOUT_MS, intervalMs: 500 },
  ).catch(async (error: unknown) => {
    throw new Error(`${errorMessage(error)}\n${await disruptionReport(core, karpenter, nodes)}`);
  });
}
