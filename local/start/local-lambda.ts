// A Lambda function running locally: the real handler module loaded in its own
// worker thread, whose process.env is exactly the function's environment (as
// each Lambda has its own), invoked with the events AWS would send. The worker
// dies with this process, so a Lambda can never outlive `npm start`.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { InvokeReply, InvokeRequest, LambdaWorkerData, ReadyMessage } from './lambda-protocol';

export interface LocalLambdaOptions {
  functionName: string;
  /** Absolute path of the handler module, e.g. LAMBDA_ENTRIES.labeler. */
  entry: string;
  /**
   * The kubeconfig file whose cluster the function talks to (its own
   * least-privilege identity), injected through the module's createHandler;
   * without it, the handler as deployed (CLUSTER_NAME's EKS cluster).
   */
  kubeconfig?: string;
  /** The function's whole environment (what the Lambda console would show, plus the local overrides). */
  environment: Record<string, string>;
  timeoutMs: number;
  memoryMiB: number;
  region: string;
  accountId: string;
  /** Every line the function writes (Powertools JSON logs, EMF metrics) is appended here. */
  logFile: string;
  /** Called with each stdout/stderr line that parses as a JSON object. */
  onLogRecord?: (record: Record<string, unknown>) => void;
}

/** A failed invocation: what the Lambda service reports as the function error. */
export class LambdaInvocationError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionName} failed: ${errorType}: ${message}`);
    this.name = 'LambdaInvocationError';
  }
}

const RUNTIME = new URL('./lambda-runtime.mjs', import.meta.url);

export class LocalLambda {
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private exited = false;

  private constructor(
    readonly options: LocalLambdaOptions,
    private readonly worker: Worker,
  ) {}

  /** Starts the worker, loads the handler module (the cold start) and resolves once it is ready. */
  static async start(options: LocalLambdaOptions): Promise<LocalLambda> {
    const workerData: LambdaWorkerData = {
      entry: options.entry,
      ...(options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig }),
      functionName: options.functionName,
      memoryMiB: options.memoryMiB,
      region: options.region,
      accountId: options.accountId,
    };
    const worker = new Worker(RUNTIME, { workerData, env: options.environment, stdout: true, stderr: true });
    const lambda = new LocalLambda(options, worker);
    for (const stream of [worker.stdout, worker.stderr]) {
      createInterface({ input: stream }).on('line', (line) => lambda.logLine(line));
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => reject(new Error(`${options.functionName}: the handler module failed to load: ${error.message}`));
      worker.once('error', onError);
      worker.once('exit', (code) => reject(new Error(`${options.functionName}: the worker exited (code ${code}) before the handler loaded`)));
      worker.once('message', (message: ReadyMessage) => {
        if (message.ready) {
          worker.off('error', onError);
          resolve();
        }
      });
    });
    worker.removeAllListeners('exit');
    worker.on('message', (reply: InvokeReply) => lambda.settle(reply));
    worker.on('error', (error) => lambda.failAll(error));
    worker.on('exit', () => {
      lambda.exited = true;
      lambda.failAll(new Error(`${options.functionName}: the worker exited`));
    });
    return lambda;
  }

  get functionName(): string {
    return this.options.functionName;
  }

  /** Invokes the handler once (synchronous invocation semantics: the error is the rejection). */
  invoke(event: unknown, requestId: string = randomUUID()): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error(`${this.functionName} is stopped`));
    const id = this.nextId++;
    const request: InvokeRequest = { id, requestId, event, timeoutMs: this.options.timeoutMs };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.exited = true;
    await this.worker.terminate();
    this.failAll(new Error(`${this.functionName} was stopped`));
  }

  private settle(reply: InvokeReply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.result);
    else waiter.reject(new LambdaInvocationError(this.functionName, reply.error.name, reply.error.message));
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  private logLine(line: string): void {
    try {
      appendFileSync(this.options.logFile, `${line}\n`);
    } catch {
      // The log directory goes away at teardown; late lines are not worth a crash.
    }
    if (!this.options.onLogRecord || !line.startsWith('{')) return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) this.options.onLogRecord(parsed as Record<string, unknown>);
    } catch {
      // Not a JSON line (a stack trace, a warning): kept in the log file only.
    }
  }
}
