import { createCertificatesHandler } from './certificates-handler';

/** Lambda entry point: the CloudFormation custom resource (first issue, removal) and the daily rotation check. */
export const handler = createCertificatesHandler();
