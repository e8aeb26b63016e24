// Karpenter's AWS provider module (github.com/aws/karpenter-provider-aws) at
// the release go-modules/karpenter-aws-provider/go.mod pins, which must be the
// chart the CDK app installs: its CRDs (EC2NodeClass, and the NodePool with
// the AWS label-domain rules) and its Helm chart's values.yaml, which the
// stack's manifests and chart values are checked against
// (test/e2e/karpenter-manifests.test.ts); and its own instance-type data
// (EC2 records of its fake, the labels its tests expect, the GPUs it scraped
// per type), which the GPU labels of the harness's Karpenter nodes are checked
// against (test/e2e/karpenter-provider-gpu-labels.test.ts). The module is only
// downloaded, never built: its packages need modules outside the harness's.
import { join } from 'node:path';
import { KARPENTER_VERSION } from '../../cdk/lib/karpenter/karpenter-release';
import { ensureGoBuild, pinnedToDeployed, type GoBuildSpec } from './go-build';

export interface AwsProviderModule {
  version: string;
  ec2NodeClassCrd: string;
  nodePoolCrd: string;
  chartValues: string;
  /** Go source: DescribeInstanceTypes records of real instance types, as the provider's fake EC2 serves them. */
  fakeInstanceTypes: string;
  /** Go source: the provider's instance-type tests (the labels it expects for a type of its fake). */
  instanceTypeSuite: string;
  /** Go source: the provider's label constants (LabelInstanceGPUName = apis.Group + "/instance-gpu-name"). */
  labels: string;
  /** Go source: the provider's API group (apis.Group). */
  apiGroup: string;
  /** Go source: the NVIDIA GPUs of each GPU instance type as the provider scraped them (count, product name, memory). */
  gpuMetadata: string;
}

const FILES = {
  ec2NodeClassCrd: 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
  nodePoolCrd: 'pkg/apis/crds/karpenter.sh_nodepools.yaml',
  chartValues: 'charts/karpenter/values.yaml',
  fakeInstanceTypes: 'pkg/fake/zz_generated.describe_instance_types.go',
  instanceTypeSuite: 'pkg/providers/instancetype/suite_test.go',
  labels: 'pkg/apis/v1/labels.go',
  apiGroup: 'pkg/apis/apis.go',
  gpuMetadata: 'pkg/providers/drametadata/zz_generated_gpu_metadata.go',
} as const;

export const KARPENTER_AWS_PROVIDER: GoBuildSpec = {
  name: 'karpenter-aws-provider',
  purpose: "Karpenter's AWS provider module (github.com/aws/karpenter-provider-aws)",
  moduleDir: join(import.meta.dirname, 'go-modules', 'karpenter-aws-provider'),
  module: 'github.com/aws/karpenter-provider-aws',
  checkPin: pinnedToDeployed('local/builds/go-modules/karpenter-aws-provider/go.mod', () => `v${KARPENTER_VERSION}`, "the stack's Karpenter chart (cdk/lib/karpenter/karpenter-release.ts)"),
  packages: [],
  copies: Object.values(FILES).map((file) => ({ from: file, to: file })),
};

/** The module's files the checks read, downloaded and copied into the cache first when needed. */
export async function ensureAwsProviderModule(log: (message: string) => void = console.log): Promise<AwsProviderModule> {
  const build = await ensureGoBuild(KARPENTER_AWS_PROVIDER, log);
  const paths = Object.fromEntries(Object.entries(FILES).map(([key, file]) => [key, join(build.dir, file)])) as Record<keyof typeof FILES, string>;
  return { version: build.version, ...paths };
}
