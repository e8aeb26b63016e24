import type { Env } from '../env';
import { envBoolean, envDuration, envInt, envList, envString } from '../env';
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
  readonly nodeRegistration: NodeRegistrationConfig;
}

/** How long a `running` event waits inside the invocation for its node to register, and how often it looks. */
export interface NodeRegistrationConfig {
  /** Upper bound; the function's remaining time (less NODE_REGISTRATION_MARGIN_MS) bounds it too. */
  readonly waitMs: number;
  /** Looks back off from 1 s to this. */
  readonly pollMaxMs: number;
}

/** EKS nodes register tens of seconds to a few minutes after `running`; GPU AMIs are at the slow end. */
export const DEFAULT_NODE_REGISTRATION_WAIT_MS = 210_000;
/** Time kept back from the function's timeout for the labelling once the node is there, so a wait never ends in a timeout. */
export const NODE_REGISTRATION_MARGIN_MS = 15_000;

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
    nodeRegistration: {
      waitMs: envDuration(env, 'NODE_REGISTRATION_WAIT', { default: DEFAULT_NODE_REGISTRATION_WAIT_MS, minMs: 0, maxMs: 15 * 60_000 }),
      pollMaxMs: envDuration(env, 'NODE_REGISTRATION_POLL_MAX', { default: 5_000, minMs: 100, maxMs: 60_000 }),
    },
  };
}
