// A cold extender container: a fresh `node` (no tsx) that imports the
// extender's Lambda bundle as CDK builds it and serves it behind the local ALB
// adapter. It is itself bundled by scale-container.ts; the parent talks to it
// over IPC (ready, stats, stop) and calls it over HTTP as the ALB would.
import { pathToFileURL } from 'node:url';
import { startAlbAdapter, type AlbLambdaHandler } from '../../local/extender-host/alb-adapter';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import type { ContainerMessage, ContainerStats } from './scale-container';

const MiB = 1024 * 1024;

function stats(): ContainerStats {
  const memory = process.memoryUsage();
  return { rssMiB: memory.rss / MiB, heapUsedMiB: memory.heapUsed / MiB, peakRssMiB: (process.resourceUsage().maxRSS * 1024) / MiB };
}

const send = (message: ContainerMessage): void => {
  process.send?.(message);
};

async function main(): Promise<void> {
  const bundle = process.argv[2];
  if (bundle === undefined) throw new Error('usage: scale-container <extender bundle>');
  const started = performance.now();
  const loaded = (await import(pathToFileURL(bundle).href)) as { handler: AlbLambdaHandler; createHandler?: (options: ReturnType<typeof kubeconfigOverrides>) => AlbLambdaHandler };
  const initMs = performance.now() - started;
  // The cluster of KUBECONFIG, injected as local hosts do; the bundle of a
  // commit from before createHandler read KUBECONFIG itself.
  const kubeconfig = process.env.KUBECONFIG;
  const handler = loaded.createHandler !== undefined && kubeconfig !== undefined ? loaded.createHandler(kubeconfigOverrides(kubeconfig)) : loaded.handler;
  // The deployed Lambda's timeout (10 s) as the handler sees it.
  const adapter = await startAlbAdapter({ handler, functionName: 'gpu-extender', timeoutMs: 10_000 });
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stats') send({ type: 'stats', stats: stats() });
    if (message.type === 'stop') process.exit(0);
  });
  send({ type: 'ready', url: adapter.url, initMs, stats: stats() });
}

main().catch((error: unknown) => {
  send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
