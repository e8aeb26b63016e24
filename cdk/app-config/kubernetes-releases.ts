/**
 * The cluster versions EKS gives standard support to (1.34's ended on
 * 2026-12-02). A config naming another version fails with an error that lists
 * these, rather than deploying a scheduler no test has run.
 */
export const KUBERNETES_VERSIONS = ['1.35', '1.36'] as const;
export type KubernetesMinorVersion = (typeof KUBERNETES_VERSIONS)[number];

/**
 * The Kubernetes patch release behind each supported cluster version: the
 * second scheduler's image (`registry.k8s.io/kube-scheduler:v<release>`) by
 * default, and, for LOCALLY_BUILT_MINOR, the kube-apiserver, kube-scheduler
 * and kube-controller-manager that local/builds/kube-binaries.ts builds for the
 * tests and `npm start`. One table, so what is deployed is what is tested.
 */
export const KUBERNETES_RELEASES = {
  '1.35': '1.35.4',
  '1.36': '1.36.3',
} as const satisfies Record<KubernetesMinorVersion, string>;

/**
 * The one version the local harness builds from source (local/kube-binaries/go.mod
 * pins `k8s.io/kubernetes v<KUBERNETES_RELEASES[LOCALLY_BUILT_MINOR]>`, and
 * The build refuses to build when they differ). The other versions'
 * schedulers have no local binary: a cold Go build of another release costs
 * about ten minutes per machine, so their configuration is not loaded by the
 * scheduler that runs it (docs/local-harness.md).
 */
export const LOCALLY_BUILT_MINOR: KubernetesMinorVersion = '1.36';

/** The `vX.Y.Z` release local/builds/kube-binaries.ts must build. */
export function locallyBuiltRelease(): string {
  return `v${KUBERNETES_RELEASES[LOCALLY_BUILT_MINOR]}`;
}
