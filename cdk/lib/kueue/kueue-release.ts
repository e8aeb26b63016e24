/**
 * The Kueue chart the stack installs when `addons.kueue.enabled`
 * (oci://registry.k8s.io/kueue/charts/kueue, Kueue's own registry). 0.17.0
 * because the local harness builds and runs sigs.k8s.io/kueue v0.17.0
 * (local/builds/go-modules/kueue-binaries/go.mod) and checks the stack's Kueue objects against
 * that release's CRDs. Change both together (a unit test compares them).
 */
export const KUEUE_VERSION = '0.17.0';
export const KUEUE_CHART_REPOSITORY = 'oci://registry.k8s.io/kueue/charts/kueue';
/** The chart's documented namespace; its webhook Service and certificate Secret live there. */
export const KUEUE_NAMESPACE = 'kueue-system';
/** The Topology the stack creates: EKS's network layers 1-3. */
export const KUEUE_TOPOLOGY_NAME = 'eks-network';
