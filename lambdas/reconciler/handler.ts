import { createReconcilerHandler } from './reconciler-handler';

/** Lambda entry point (EventBridge schedule); clients and the EKS token live as long as the container. */
export const handler = createReconcilerHandler();
