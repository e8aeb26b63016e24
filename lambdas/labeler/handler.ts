import { createLabelerHandler } from './labeler-handler';

/** Lambda entry point (EventBridge: EC2 state-change `running` and the reconcile schedule). */
export const handler = createLabelerHandler();
