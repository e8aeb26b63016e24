/**
 * The Karpenter chart the stack installs (oci://public.ecr.aws/karpenter/karpenter).
 * 1.15.0 because its AWS provider module (github.com/aws/karpenter-provider-aws
 * v1.15.0) requires sigs.k8s.io/karpenter v1.15.0, the core the local harness
 * builds and runs (local/builds/go-modules/karpenter-binaries/go.mod): the scheduling and
 * consolidation the e2e tests exercise are the deployed ones, and the NodePool
 * and EC2NodeClass manifests are checked against that release's CRDs.
 * Change it together with that go.mod (a unit test compares the two).
 */
export const KARPENTER_VERSION = '1.15.0';

export const KARPENTER_CHART_REPOSITORY = 'oci://public.ecr.aws/karpenter/karpenter';
/** Karpenter's documented home; its Pod Identity association names this service account. */
export const KARPENTER_NAMESPACE = 'kube-system';
export const KARPENTER_SERVICE_ACCOUNT = 'karpenter';
