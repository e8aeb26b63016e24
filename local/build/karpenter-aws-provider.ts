// Karpenter's AWS provider module (github.com/aws/karpenter-provider-aws) at
// the release the CDK app installs, from the Go module proxy: its CRDs
// (EC2NodeClass, and the NodePool with the AWS label-domain rules) and its
// Helm chart's values.yaml, which the stack's manifests and chart values are
// checked against (test/e2e/karpenter-manifests.test.ts). Only downloaded,
// never built; the module cache keeps it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KARPENTER_VERSION } from '../../cdk/lib/karpenter/karpenter-release';
import { pinnedKarpenter } from './karpenter-binaries';
import { requireGo, runGo } from './go';

export const AWS_PROVIDER_MODULE = 'github.com/aws/karpenter-provider-aws';

export interface AwsProviderModule {
  version: string;
  dir: string;
  ec2NodeClassCrd: string;
  nodePoolCrd: string;
  chartValues: string;
}

/** Downloads the module (a no-op once it is in the module cache) and names the files the checks read. */
export async function ensureAwsProviderModule(): Promise<AwsProviderModule> {
  requireGo(AWS_PROVIDER_MODULE);
  const version = `v${KARPENTER_VERSION}`;
  // Its go.mod needs the toolchain the core's build uses (same release train).
  const { toolchain } = pinnedKarpenter();
  const workDir = mkdtempSync(join(tmpdir(), 'karpenter-aws-'));
  const lines: string[] = [];
  try {
    await runGo(['mod', 'download', '-json', `${AWS_PROVIDER_MODULE}@${version}`], workDir, (line) => lines.push(line), toolchain);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const dir = /"Dir":\s*"([^"]+)"/.exec(lines.join('\n'))?.[1];
  if (!dir) throw new Error(`go mod download printed no directory for ${AWS_PROVIDER_MODULE}@${version}:\n${lines.join('\n')}`);
  const module: AwsProviderModule = {
    version,
    dir,
    ec2NodeClassCrd: join(dir, 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml'),
    nodePoolCrd: join(dir, 'pkg/apis/crds/karpenter.sh_nodepools.yaml'),
    chartValues: join(dir, 'charts/karpenter/values.yaml'),
  };
  for (const file of [module.ec2NodeClassCrd, module.nodePoolCrd, module.chartValues]) {
    if (!existsSync(file)) throw new Error(`${AWS_PROVIDER_MODULE}@${version} has no ${file.slice(dir.length + 1)}`);
  }
  return module;
}
