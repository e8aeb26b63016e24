// The extender Lambda handler behind the local ALB adapter, recording every
// exchange: its decision log (what it decided, per verb and pod), failures,
// the HTTP status of each answer and each /filter reply's verdict per node. e2e tests assert on these to show the
// extender was really asked and always answered, without mocking anything.
import type { DecisionSummary, ExtenderRanking } from '../../lambdas/extender/decision';
import { albHandlerOf, createExtender } from '../../lambdas/extender/extender-handler';
import type { ExtenderObserver } from '../../lambdas/extender/observer';
import type { Env } from '../../lambdas/env';
import { startAlbAdapter, type AlbAdapter, type AlbAdapterOptions } from './alb-adapter';
import { kubeconfigOverrides } from '../control-plane/kubeconfig-connection';
import type { Snapshot } from '../../lambdas/scheduling';
import { waitForExtenderSnapshot, waitForStaleSnapshot } from './extender-snapshot';
import type { ExtenderFilterResult } from '../../lambdas/extender/wire-types';

/** One /filter answer as kube-scheduler read it (NodeNames mode): the nodes kept, and each rejected node with its reason. */
export interface FilterReply {
  /** namespace/name of the pod. */
  readonly pod: string;
  readonly kept: readonly string[];
  readonly failed: Readonly<Record<string, string>>;
}

export interface RecordingExtender {
  readonly adapter: AlbAdapter;
  readonly decisions: readonly { verb: string; summary: DecisionSummary }[];
  readonly failures: readonly { verb: string | undefined; status: number; message: string }[];
  /** Every answer, with the handler's own time (what the Lambda would bill, without the ALB's hop). */
  readonly responses: readonly { path: string; status: number; handlerMs: number }[];
  /** The extender's filter decisions for one pod, oldest first. */
  filterDecisionsOf(namespace: string, pod: string): DecisionSummary[];
  /** The extender's successful /filter replies for one pod, oldest first: which node it rejected, and why. */
  filterRepliesOf(namespace: string, pod: string): FilterReply[];
  /** How the extender's latest /prioritize for one pod ranked the nodes (best, runner-up); undefined before one. */
  lastRankingOf(namespace: string, pod: string): ExtenderRanking | undefined;
  /** Refreshes the extender's cluster cache until its snapshot satisfies `holds`, e.g. shows a label just written (extender-snapshot.ts). */
  waitForSnapshot(describe: string, holds: (snapshot: Snapshot) => boolean, timeoutMs?: number): Promise<void>;
  /** Waits, without a refresh, until the snapshot served is older than the TTL, so the next request refreshes it (extender-snapshot.ts). */
  waitForStaleSnapshot(ttlMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the extender handler behind a local ALB, talking to the cluster of
 * `kubeconfig` (e.g. the control plane's extender identity; without one it
 * has no cluster access), with `env` as its environment (e.g. EXTENDER_CACHE_TTL).
 */
export async function startRecordingExtender(
  kubeconfig: string | undefined,
  env: Env = {},
  albOptions: Pick<AlbAdapterOptions, 'tls' | 'reservedConcurrency' | 'minInvocationMs'> = {},
): Promise<RecordingExtender> {
  const decisions: { verb: string; summary: DecisionSummary }[] = [];
  const failures: { verb: string | undefined; status: number; message: string }[] = [];
  const responses: { path: string; status: number; handlerMs: number }[] = [];
  const filterReplies: FilterReply[] = [];
  const observer: ExtenderObserver = {
    decision: (verb, summary) => decisions.push({ verb, summary }),
    failure: (verb, status, message) => failures.push({ verb, status, message }),
    warn: () => undefined,
  };
  const extender = createExtender({ env, observer, ...(kubeconfig === undefined ? {} : kubeconfigOverrides(kubeconfig)) });
  const handler = albHandlerOf(extender);
  const adapter = await startAlbAdapter({
    ...albOptions,
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const startedAt = performance.now();
      const result = await handler(event, context);
      responses.push({ path: event.path, status: result.statusCode, handlerMs: performance.now() - startedAt });
      if (event.path.endsWith('/filter') && result.statusCode === 200) {
        const reply = filterReplyOf(event.body, result.body);
        if (reply) filterReplies.push(reply);
      }
      return result;
    },
  });
  return {
    adapter,
    decisions,
    failures,
    responses,
    filterDecisionsOf: (namespace, pod) =>
      decisions.filter((d) => d.verb === 'filter' && d.summary.pod === `${namespace}/${pod}`).map((d) => d.summary),
    filterRepliesOf: (namespace, pod) => filterReplies.filter((r) => r.pod === `${namespace}/${pod}`),
    lastRankingOf: (namespace, pod) => decisions.filter((d) => d.verb === 'prioritize' && d.summary.pod === `${namespace}/${pod}`).at(-1)?.summary.ranking,
    waitForSnapshot: (describe, holds, timeoutMs) => waitForExtenderSnapshot(extender, describe, holds, timeoutMs),
    waitForStaleSnapshot: (ttlMs) => waitForStaleSnapshot(extender, ttlMs),
    stop: () => adapter.stop(),
  };
}

/** The pod a /filter request named and the reply's verdicts; undefined for a body that is not one (e.g. a flood's). */
function filterReplyOf(requestBody: string | null, replyBody: string | undefined): FilterReply | undefined {
  try {
    const request = JSON.parse(requestBody ?? '') as { Pod?: { metadata?: { namespace?: string; name?: string } } };
    const reply = JSON.parse(replyBody ?? '') as Partial<ExtenderFilterResult>;
    const { namespace, name } = request.Pod?.metadata ?? {};
    if (!namespace || !name) return undefined;
    return { pod: `${namespace}/${name}`, kept: reply.NodeNames ?? [], failed: { ...reply.FailedNodes, ...reply.FailedAndUnresolvableNodes } };
  } catch {
    return undefined;
  }
}
