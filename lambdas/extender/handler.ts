import { albHandlerOf, createExtender } from './extender-handler';
import { warmAtInit } from './init-warmup';

const extender = createExtender();
// With provisioned concurrency the first listing of the cluster happens here, before any request (init-warmup.ts).
await warmAtInit(extender, process.env);

/** Lambda entry point behind the internal ALB; the cluster cache and EKS token live as long as the container. */
export const handler = albHandlerOf(extender);

/** The same handler with injected dependencies, for the local hosts that load this module (local/: npm start, tests, benchmarks). */
export { createExtenderHandler as createHandler } from './extender-handler';
