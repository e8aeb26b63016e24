import type { Env } from '../env';
import { envBoolean, envInt, envList, envString } from '../env';
import { CLUSTER_NAME_PATTERN } from '../kube';
import type { LabelSetOptions } from './gpu-labels';

export interface LabelerConfig {
  /** Instances tagged for this cluster whose node is missing are retried; others are ignored. */
  readonly clusterName: string;
  readonly labels: LabelSetOptions;
  /** Node PATCHes in flight at once during a reconcile. */
  readonly reconcileConcurrency: number;
  /** Nodes per list page (the API server's `limit`). */
  readonly nodePageSize: number;
}

/** The labeler's settings, from its environment (documented in docs/labeler.md). */
export function labelerConfigFromEnv(env: Env): LabelerConfig {
  return {
    clusterName: envString(env, 'CLUSTER_NAME', { pattern: CLUSTER_NAME_PATTERN, description: 'an EKS cluster name (letters, digits, - and _)' }),
    labels: {
      karpenterLabels: envBoolean(env, 'LABEL_KARPENTER_COMPAT', { default: false }),
      gfdLabels: envBoolean(env, 'LABEL_GFD_COMPAT', { default: false }),
      manufacturers: envList(env, 'LABEL_GPU_MANUFACTURERS', { default: ['NVIDIA'], itemPattern: /[A-Za-z0-9][A-Za-z0-9 ._-]*/ }),
    },
    reconcileConcurrency: envInt(env, 'RECONCILE_CONCURRENCY', { default: 8, min: 1, max: 64 }),
    nodePageSize: envInt(env, 'NODE_PAGE_SIZE', { default: 500, min: 10, max: 5000 }),
  };
}
