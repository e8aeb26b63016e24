// Messages between the main thread and a local Lambda's worker thread.

export interface LambdaWorkerData {
  /** Absolute path of the handler module (exports `handler` and `createHandler`). */
  entry: string;
  /** The kubeconfig file whose cluster the handler talks to (LocalLambdaOptions.kubeconfig). */
  kubeconfig?: string;
  functionName: string;
  memoryMiB: number;
  region: string;
  accountId: string;
}

export interface InvokeRequest {
  id: number;
  requestId: string;
  event: unknown;
  timeoutMs: number;
}

export type InvokeReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

export interface ReadyMessage {
  ready: true;
}
