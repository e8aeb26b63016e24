// Memory of the extender holding a large cluster in its cache, measured in a
// fresh process (run through child-process.ts with --expose-gc) so nothing
// else the benchmark allocated is counted.
import type { ClusterCache } from '../../lambdas/cluster-state/cluster-cache';
import type { ALBEvent } from 'aws-lambda';
import { createExtenderHandler } from '../../lambdas/extender/extender-handler';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { snapshotFromKubernetes } from '../../lambdas/scheduling';
import { boundPods, gpuNodes, nodeNamesArgs } from './extender-fixtures';
import { albEvent } from './extender-latency';

export interface MemoryCase {
  readonly nodes: number;
  readonly pods: number;
}

export interface MemoryResult extends MemoryCase {
  /** After loading the extender's code, before any cluster state (MiB). */
  readonly baseHeapMiB: number;
  readonly baseRssMiB: number;
  /** Heap right after the cache refresh, with the listed objects still alive: the refresh's peak (MiB over base). */
  readonly refreshHeapMiB: number;
  /** Heap the warm cache keeps once the listed objects are released and collected (MiB over base). */
  readonly retainedHeapMiB: number;
  /** Peak resident set over the whole run (maxRSS) minus the base RSS (MiB). */
  readonly peakRssMiB: number;
  /** One NodeNames filter + prioritize over every node still answers 200 with this cache. */
  readonly requestOk: boolean;
}

const MiB = 1024 * 1024;

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the memory benchmark needs node --expose-gc (run it through npm run bench)');
  gc();
  gc();
}

function listing(c: MemoryCase): { nodes: Record<string, unknown>[]; pods: Record<string, unknown>[] } {
  const nodes = gpuNodes(c.nodes);
  return { nodes, pods: boundPods(nodes, c.pods) };
}

export async function measureMemory(c: MemoryCase): Promise<MemoryResult> {
  collect();
  const base = process.memoryUsage();
  let state: { nodes: Record<string, unknown>[]; pods: Record<string, unknown>[] } | undefined = listing(c);
  const body = nodeNamesArgs(state.nodes);
  // What a cache refresh does: build the snapshot from the listed objects, then let the listing go.
  const snapshot = snapshotFromKubernetes(state.nodes, state.pods);
  const cache: ClusterCache = { snapshot: () => Promise.resolve(snapshot) };
  const invoke = createExtenderHandler({ env: {}, cache });
  const handler = (event: ALBEvent) => invoke(event, localLambdaContext({ functionName: 'gpu-extender-bench', timeoutMs: 30_000 }));
  const refreshHeap = process.memoryUsage().heapUsed;
  state = undefined;

  const filter = await handler(albEvent('/filter', body));
  const prioritize = await handler(albEvent('/prioritize', body));
  collect();
  const retained = process.memoryUsage().heapUsed;
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  if (snapshot.nodes.length !== c.nodes) throw new Error(`the cache holds ${snapshot.nodes.length} nodes, expected ${c.nodes}`);
  return {
    ...c,
    baseHeapMiB: base.heapUsed / MiB,
    baseRssMiB: base.rss / MiB,
    refreshHeapMiB: (refreshHeap - base.heapUsed) / MiB,
    retainedHeapMiB: (retained - base.heapUsed) / MiB,
    peakRssMiB: (peakRssBytes - base.rss) / MiB,
    requestOk: filter.statusCode === 200 && prioritize.statusCode === 200,
  };
}
