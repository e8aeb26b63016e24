/** One Kubernetes RBAC rule. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** One Lambda's Kubernetes group and what it may do. */
export interface LambdaKubernetesAccess {
  /** Named in the Lambda's access entry; also the name of its ClusterRole, Roles and bindings. Must not start with `system:`. */
  readonly group: string;
  /** Granted cluster-wide. */
  readonly rules: readonly PolicyRule[];
  /**
   * Granted in each namespace the Lambda is limited to (a Role and a
   * RoleBinding per namespace), or cluster-wide when it is limited to none.
   */
  readonly namespacedRules?: readonly PolicyRule[];
  /**
   * Where events about Nodes live (event recorders put those of cluster-scoped
   * objects in `default`): when the namespaced rules are limited to some
   * namespaces, listing events is granted here too.
   */
  readonly nodeEventsNamespace?: string;
}

/**
 * Kubernetes groups (one per Lambda, named in its access entry) and what each
 * may do. Narrow on purpose: no secrets, no deletes, no cluster-admin. What a
 * patch may change is narrowed further by admission policies
 * (write-limit-policy.ts), which RBAC cannot express.
 */
export const LAMBDA_KUBERNETES_ACCESS = {
  extender: {
    group: 'gpu-scheduling-extender',
    // Reads the cluster to answer filter/prioritize/preempt: lists nodes and pods once per
    // container, then watches for the changes since (never a single-object get); writes nothing.
    // ResourceSlices (only NVIDIA's, by field selector) say how many GPUs a DRA node has;
    // ResourceClaims, which of them are taken and what a pending pod's claims ask.
    rules: [
      { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices', 'resourceclaims'], verbs: ['list', 'watch'] },
    ],
  },
  labeler: {
    group: 'gpu-scheduling-labeler',
    // Finds the node of an instance (providerID) and merge-patches its GPU labels.
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] }],
  },
  reconciler: {
    group: 'gpu-scheduling-reconciler',
    // Writes GPU utilization onto nodes for the extender's score. Lists
    // NVIDIA's ResourceSlices and all ResourceClaims once per run (no watch)
    // for the GPUs of DRA nodes, and those claims hold, in the outcome metrics.
    rules: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices', 'resourceclaims'], verbs: ['list'] },
    ],
    // Lists opted-in pods and writes their pod-deletion-cost annotation (and
    // the do-not-disrupt of opted-in training pods), and lists Karpenter's
    // Nominated events of pending pods (waiting for capacity or for a fit),
    // in the reconciler's POD_NAMESPACES only when that is set; and the
    // Warning events about Nodes (the node monitoring agent's GPU warnings,
    // gpu-health-labels.ts), which live in `default`.
    nodeEventsNamespace: 'default',
    namespacedRules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list'] },
    ],
  },
} as const satisfies Record<string, LambdaKubernetesAccess>;
