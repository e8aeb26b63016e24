import { createLabelerHandler } from './labeler-handler';

/** Lambda entry point (EventBridge: EC2 state-change `running` and the reconcile schedule). */
export const handler = createLabelerHandler();

/** The same handler with injected dependencies, for the local hosts that load this module (local/: npm start, tests, benchmarks). */
export { createLabelerHandler as createHandler } from './labeler-handler';
