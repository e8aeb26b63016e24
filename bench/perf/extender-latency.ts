// Filter + prioritize through the extender's ALB Lambda handler, in process,
// against the irreducible cost of the same exchange: JSON.parse of the request
// and JSON.stringify of the responses, measured interleaved in the same run.
import type { ALBEvent, ALBResult } from 'aws-lambda';
import type { ClusterCache } from '../../lambdas/cluster-state/cluster-cache';
import { createExtenderHandler } from '../../lambdas/extender/extender-handler';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { snapshotFromKubernetes } from '../../lambdas/scheduling';
import { boundPods, fullNodesArgs, gpuNodes, nodeNamesArgs } from './extender-fixtures';
import type { TimingSummary } from './stats';
import { summarise } from './stats';

export type ExtenderMode = 'NodeNames' | 'Nodes';

export interface LatencyCase {
  readonly mode: ExtenderMode;
  readonly nodes: number;
  /** Pods bound in the cache per node (10 by default: 50,000 pods at 5,000 nodes). */
  readonly podsPerNode: number;
  readonly iterations: number;
  readonly warmup: number;
}

export interface LatencyResult {
  readonly mode: ExtenderMode;
  readonly nodes: number;
  readonly pods: number;
  readonly requestBytes: number;
  /** Nodes in the prioritize request: those the filter kept (kube-scheduler's order of calls). */
  readonly prioritizeNodes: number;
  readonly filterResponseBytes: number;
  readonly prioritizeResponseBytes: number;
  /** Filter + prioritize through the handler, ms. */
  readonly handler: TimingSummary;
  readonly filter: TimingSummary;
  readonly prioritize: TimingSummary;
  /** JSON.parse of both requests + JSON.stringify of both responses, ms. */
  readonly baseline: TimingSummary;
  /** handler median / baseline median. */
  readonly ratio: number;
  /** Nodes the filter kept. */
  readonly kept: number;
}

/** A warm cache: the snapshot the extender's TTL cache would hold between refreshes. */
function warmCache(nodes: readonly unknown[], pods: readonly unknown[]): ClusterCache {
  const snapshot = snapshotFromKubernetes(nodes, pods);
  return { snapshot: () => Promise.resolve(snapshot) };
}

/** A POST as the internal ALB hands it to the Lambda (multi-value headers off). */
export function albEvent(path: string, body: string): ALBEvent {
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/gpu-extender/0123456789abcdef' } },
    httpMethod: 'POST',
    path,
    queryStringParameters: {},
    headers: { 'content-type': 'application/json', host: 'internal-gpu-extender.elb.amazonaws.com' },
    body,
    isBase64Encoded: false,
  };
}

/**
 * Reads a reply body as the Lambda runtime does when it serialises the
 * result: a body built as a rope of concatenated strings is flattened on
 * first read, and that copy belongs to the handler's time, not to nobody's.
 */
function readWhole(body: string | undefined): number {
  return body === undefined || body.length === 0 ? 0 : body.charCodeAt(body.length - 1) + body.length;
}

function expectOk(result: ALBResult, verb: string): string {
  if (result.statusCode !== 200 || typeof result.body !== 'string') throw new Error(`${verb} answered ${result.statusCode}: ${String(result.body).slice(0, 300)}`);
  return result.body;
}

export async function measureLatency(c: LatencyCase): Promise<LatencyResult> {
  const nodes = gpuNodes(c.nodes);
  const pods = boundPods(nodes, c.nodes * c.podsPerNode);
  const invoke = createExtenderHandler({ env: {}, cache: warmCache(nodes, pods) });
  // One context for every call: making it is the Lambda runtime's work, not the handler's.
  const context = localLambdaContext({ functionName: 'gpu-extender-bench', timeoutMs: 30_000 });
  const handler = (event: ALBEvent) => invoke(event, context);
  const body = c.mode === 'NodeNames' ? nodeNamesArgs(nodes) : fullNodesArgs(nodes);
  const filterEvent = albEvent('/filter', body);

  // As kube-scheduler does, prioritize is then
  // asked about the nodes the filter kept, not about every node.
  const filterBody = expectOk(await handler(filterEvent), 'filter');
  const filterResponse: unknown = JSON.parse(filterBody);
  const keptNodes = keptOf(filterResponse, c.mode, nodes);
  if (keptNodes.length === 0 || keptNodes.length === c.nodes) {
    throw new Error(`filter kept ${keptNodes.length} of ${c.nodes} nodes: the fixture should make it reject some and keep some`);
  }
  const prioritizeRequest = c.mode === 'NodeNames' ? nodeNamesArgs(keptNodes) : fullNodesArgs(keptNodes);
  const prioritizeEvent = albEvent('/prioritize', prioritizeRequest);
  const prioritizeBody = expectOk(await handler(prioritizeEvent), 'prioritize');
  const prioritizeResponse: unknown = JSON.parse(prioritizeBody);
  if (!Array.isArray(prioritizeResponse) || prioritizeResponse.length !== keptNodes.length) {
    throw new Error(`prioritize returned ${String(prioritizeResponse)} for ${keptNodes.length} nodes`);
  }
  const kept = keptNodes.length;

  let sink = 0;
  const baselineOnce = (): number => {
    const t0 = performance.now();
    sink += (JSON.parse(body) as { Pod: unknown }).Pod === undefined ? 0 : 1;
    sink += JSON.stringify(filterResponse).length;
    sink += (JSON.parse(prioritizeRequest) as { Pod: unknown }).Pod === undefined ? 0 : 1;
    sink += JSON.stringify(prioritizeResponse).length;
    return performance.now() - t0;
  };
  const handlerOnce = async (): Promise<[number, number]> => {
    const t0 = performance.now();
    const f = await handler(filterEvent);
    sink += readWhole(f.body);
    const t1 = performance.now();
    const p = await handler(prioritizeEvent);
    sink += readWhole(p.body);
    const t2 = performance.now();
    if (f.statusCode !== 200 || p.statusCode !== 200) throw new Error(`handler answered ${f.statusCode}/${p.statusCode}`);
    return [t1 - t0, t2 - t1];
  };

  for (let i = 0; i < c.warmup; i++) {
    await handlerOnce();
    baselineOnce();
  }
  const filter: number[] = [];
  const prioritize: number[] = [];
  const both: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < c.iterations; i++) {
    // Alternate the order so neither side always runs on a freshly collected heap.
    if (i % 2 === 0) baseline.push(baselineOnce());
    const [f, p] = await handlerOnce();
    filter.push(f);
    prioritize.push(p);
    both.push(f + p);
    if (i % 2 === 1) baseline.push(baselineOnce());
  }
  if (sink === 0) throw new Error('nothing was measured');
  const handlerSummary = summarise(both);
  const baselineSummary = summarise(baseline);
  return {
    mode: c.mode,
    nodes: c.nodes,
    pods: pods.length,
    requestBytes: Buffer.byteLength(body, 'utf8'),
    prioritizeNodes: kept,
    filterResponseBytes: Buffer.byteLength(filterBody, 'utf8'),
    prioritizeResponseBytes: Buffer.byteLength(prioritizeBody, 'utf8'),
    handler: handlerSummary,
    filter: summarise(filter),
    prioritize: summarise(prioritize),
    baseline: baselineSummary,
    ratio: handlerSummary.median / baselineSummary.median,
    kept,
  };
}

/** The request nodes the filter kept, in request order. */
function keptOf(response: unknown, mode: ExtenderMode, nodes: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const r = response as { NodeNames?: string[] | null; Nodes?: { items?: { metadata?: { name?: string } }[] } | null };
  const names = new Set(mode === 'NodeNames' ? (r.NodeNames ?? []) : (r.Nodes?.items ?? []).map((n) => n.metadata?.name));
  return nodes.filter((n) => names.has((n.metadata as { name: string }).name));
}
