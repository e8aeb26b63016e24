import { createExtenderHandler } from './extender-handler';

/** Lambda entry point behind the internal ALB; the cluster cache and EKS token live as long as the container. */
export const handler = createExtenderHandler();
