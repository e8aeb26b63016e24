// Runs inside a worker thread: one Lambda "container" with its own
// process.env (the function's environment), loading the real handler module
// once and invoking it for each event the main thread sends, as the Lambda
// runtime would. With a kubeconfig, the handler is the module's createHandler
// given that file's connection (the deployed one would ask EKS for
// CLUSTER_NAME's). Replies are plain data (structured clone).
import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { kubeconfigOverrides } from '../control-plane/kubeconfig-connection';
import { localLambdaContext } from '../aws/lambda-context';
import type { InvokeReply, InvokeRequest, LambdaWorkerData } from './lambda-protocol';
import { errorMessage } from '../../lambdas/common/error-message';

type AsyncHandler = (event: unknown, context: Context) => Promise<unknown>;

const data = workerData as LambdaWorkerData;
const port = parentPort;
if (!port) throw new Error('lambda-worker must run in a worker thread');

function contextFor(request: InvokeRequest): Context {
  return localLambdaContext({
    functionName: data.functionName,
    timeoutMs: request.timeoutMs,
    region: data.region,
    accountId: data.accountId,
    memoryMiB: data.memoryMiB,
    requestId: request.requestId,
  });
}

const loaded = (await import(data.entry)) as { handler?: unknown; createHandler?: unknown };
const handler = data.kubeconfig === undefined ? deployedHandler() : injectedHandler(data.kubeconfig);

function deployedHandler(): AsyncHandler {
  if (typeof loaded.handler !== 'function') throw new Error(`${data.entry} does not export a function named handler`);
  return loaded.handler as AsyncHandler;
}

function injectedHandler(kubeconfig: string): AsyncHandler {
  if (typeof loaded.createHandler !== 'function') throw new Error(`${data.entry} does not export a function named createHandler`);
  return (loaded.createHandler as (options: ReturnType<typeof kubeconfigOverrides>) => AsyncHandler)(kubeconfigOverrides(kubeconfig));
}

port.on('message', (request: InvokeRequest) => {
  const reply = (message: InvokeReply): void => port.postMessage(message);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Task timed out after ${(request.timeoutMs / 1000).toFixed(2)} seconds`)), request.timeoutMs);
  });
  Promise.race([handler(request.event, contextFor(request)), timeout])
    .then(
      (result) => reply({ id: request.id, ok: true, result }),
      (error: unknown) =>
        reply({
          id: request.id,
          ok: false,
          error: { name: error instanceof Error ? error.name : 'Error', message: errorMessage(error) },
        }),
    )
    .finally(() => clearTimeout(timer));
});

port.postMessage({ ready: true });
