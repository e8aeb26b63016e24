import { createReconcilerHandler } from './reconciler-handler';

/** Lambda entry point (EventBridge schedule); clients and the EKS token live as long as the container. */
export const handler = createReconcilerHandler();

/** The same handler with injected dependencies, for the local hosts that load this module (local/: npm start, tests, benchmarks). */
export { createReconcilerHandler as createHandler } from './reconciler-handler';
