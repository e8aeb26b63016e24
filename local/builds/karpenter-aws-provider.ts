// Karpenter's AWS provider module (github.com/aws/karpenter-provider-aws) at
// the release go-modules/karpenter-aws-provider/go.mod pins, which must be the
// chart the CDK app installs: its CRDs (EC2NodeClass, and the NodePool with
// the AWS label-domain rules) and its Helm chart's values.yaml, which the
// stack's manifests and chart values are checked against
// (test/e2e/karpenter-manifests.test.ts). The module is only downloaded,
// never built.
import { join } from 'node:path';
import { KARPENTER_VERSION } from '../../cdk/lib/karpenter/karpenter-release';
import { ensureGoBuild, pinnedToDeployed, type GoBuildSpec } from './go-build';

export interface AwsProviderModule {
  version: string;
  ec2NodeClassCrd: string;
  nodePoolCrd: string;
  chartValues: string;
}

const FILES = {
  ec2NodeClassCrd: 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
  nodePoolCrd: 'pkg/apis/crds/karpenter.sh_nodepools.yaml',
  chartValues: 'charts/karpenter/values.yaml',
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
  return {
    version: build.version,
    ec2NodeClassCrd: join(build.dir, FILES.ec2NodeClassCrd),
    nodePoolCrd: join(build.dir, FILES.nodePoolCrd),
    chartValues: join(build.dir, FILES.chartValues),
  };
}
