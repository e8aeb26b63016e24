/**
 * Items per Kubernetes list call unless EXTENDER_LIST_PAGE_SIZE says
 * otherwise; bigger pages mean fewer round trips at 50,000 pods. A module of
 * its own because both sides of the extender's bundle read it: config.ts at
 * cold start and the Kubernetes source, which loads on the first refresh
 * (cluster-access.ts), and a constant is the kind of module the two may each
 * hold a copy of (cdk/lib/functions/split-build.ts).
 */
export const DEFAULT_LIST_PAGE_SIZE = 2000;
