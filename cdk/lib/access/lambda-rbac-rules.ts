import type { PolicyRule } from './cluster-access';

/**
 * Kubernetes groups (one per Lambda, named in its access entry) and what each
 * may do. Narrow on purpose: no secrets, no deletes, no cluster-admin.
 */
export const LAMBDA_KUBERNETES_ACCESS = {
  extender: {
    group: 'gpu-scheduling-extender',
    // Reads the cluster to answer filter/prioritize/preempt; writes nothing.
    rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] }],
  },
  labeler: {
    group: 'gpu-scheduling-labeler',
    // Finds the node of an instance (providerID) and merge-patches its GPU labels.
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] }],
  },
  reconciler: {
    group: 'gpu-scheduling-reconciler',
    rules: [
      // Writes the pod-deletion-cost annotation on opted-in pods.
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch'] },
      // Writes GPU utilization onto nodes for the extender's score.
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] },
    ],
  },
} as const satisfies Record<string, { group: string; rules: readonly PolicyRule[] }>;
