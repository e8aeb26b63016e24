// `npm run preflight`: before `cdk deploy`, what the configuration would clash
// with on the target cluster, read with the user's own kubeconfig and AWS
// credentials (read only), each finding with the config key or action that
// resolves it (cdk/preflight/).
import { KubeConfig } from '@kubernetes/client-node';
import { defineCli, isEntryPoint, readCommandLine, UsageError } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';
import { awsClientConfigFromEnv } from '../../lambdas/aws/aws-client-config';
import { createEksClient } from '../../lambdas/aws/clients';
import { ConfigError } from '../../lambdas/env';
import type { AppConfig } from '../app-config/app-config';
import { AppConfigError } from '../app-config/app-config-error';
import { ClusterUnreachable, readClusterFacts } from '../preflight/cluster-facts';
import { describeEksCluster, type EksLookup } from '../preflight/eks-facts';
import { preflightFindings, type Finding, type Severity } from '../preflight/preflight-checks';
import { loadToolConfig } from './tool-config';

export const PREFLIGHT_CLI = defineCli({
  usage: 'npm run preflight -- [--config <file>] [--kubeconfig <file>] [--context <name>] [--region <region>] [--no-aws]',
  summary: [
    'Before cdk deploy: reads the target cluster (kubeconfig, lists and gets only) and EKS (DescribeCluster)',
    'and says what the configuration would clash with: the Kubernetes version, access entries, the GPU',
    'NodePools\' taints against the opt-in\'s tolerations, a device plugin or GPU Operator, the CloudWatch',
    'add-on, Kueue, the DRA driver, the node monitoring agent, another scheduler of the same name, where',
    'the scheduler would run, and the monthly cost at the size found. Each finding names the config key',
    'or the action that resolves it. Writes nothing.',
    'Exit 0 no blocker, 1 blockers (or a bad configuration), 2 bad usage, 3 the cluster cannot be reached.',
  ].join('\n'),
  options: {
    config: { type: 'string', value: 'file', description: "the app's config file (JSON or YAML); default: cdk.json's context, as cdk synth reads it" },
    kubeconfig: { type: 'string', value: 'file', description: 'the kubeconfig to read the cluster with (default: $KUBECONFIG or ~/.kube/config)' },
    context: { type: 'string', value: 'name', description: "the kubeconfig's context to use (default: its current context)" },
    region: { type: 'string', value: 'region', description: "the cluster's AWS region (default: $AWS_REGION or $AWS_DEFAULT_REGION)" },
    'no-aws': { type: 'boolean', description: 'do not ask EKS (access entries and the VPC settings go unchecked)' },
  },
  examples: [
    'aws eks update-kubeconfig --name prod-gpu --region eu-west-1',
    'npm run preflight -- --config cdk/app-config/example-existing-cluster.yaml --region eu-west-1',
  ],
});

interface PreflightOptions {
  readonly config: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
  readonly region: string | undefined;
  readonly aws: boolean;
}

/** Exit codes, as the help states them. */
export const PREFLIGHT_EXIT = { clear: 0, blockers: 1, usage: 2, unreachable: 3 } as const;

const LABEL: Readonly<Record<Severity, string>> = { blocker: 'BLOCKER', warning: 'WARNING', ok: 'ok', info: 'info' };
const ORDER: readonly Severity[] = ['blocker', 'warning', 'ok', 'info'];

/** The report: blockers first, each finding with what resolves it on the line below. */
export function formatFindings(findings: readonly Finding[]): string {
  const sorted = [...findings].sort((a, b) => ORDER.indexOf(a.severity) - ORDER.indexOf(b.severity));
  const topicWidth = Math.max(...sorted.map((f) => f.topic.length));
  const lines = sorted.flatMap((f) => [
    `${LABEL[f.severity].padEnd(8)} ${f.topic.padEnd(topicWidth)}  ${f.message}`,
    ...(f.resolve === undefined ? [] : [`${' '.repeat(9 + topicWidth)}  → ${f.resolve}`]),
  ]);
  const blockers = findings.filter((f) => f.severity === 'blocker').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const verdict = blockers > 0 ? 'resolve the blockers before cdk deploy' : 'nothing blocks cdk deploy';
  return [...lines, '', `${blockers} blocker(s), ${warnings} warning(s): ${verdict}.`].join('\n');
}

function kubeConfigOf(options: PreflightOptions): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (options.kubeconfig === undefined) kubeConfig.loadFromDefault();
  else kubeConfig.loadFromFile(options.kubeconfig);
  if (options.context !== undefined) {
    if (!kubeConfig.getContexts().some((c) => c.name === options.context)) throw new ClusterUnreachable(`the kubeconfig has no context ${options.context}`);
    kubeConfig.setCurrentContext(options.context);
  }
  if (kubeConfig.getCurrentCluster() === null) throw new ClusterUnreachable('no cluster in the kubeconfig: set KUBECONFIG, pass --kubeconfig, or run aws eks update-kubeconfig');
  return kubeConfig;
}

async function askEks(config: AppConfig, options: PreflightOptions): Promise<EksLookup | undefined> {
  if (!options.aws) return undefined;
  const env = { ...process.env, ...(options.region === undefined ? {} : { AWS_REGION: options.region }) };
  let client;
  try {
    client = createEksClient(awsClientConfigFromEnv(env));
  } catch (error) {
    if (error instanceof ConfigError) return { failed: `no region: pass --region or set AWS_REGION (${error.message})` };
    throw error;
  }
  try {
    return await describeEksCluster(client, config.clusterName);
  } finally {
    client.destroy();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const options = readCommandLine(PREFLIGHT_CLI, argv, (values): PreflightOptions => {
    if (values.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(values.region)) throw new UsageError(`--region must be an AWS region such as eu-west-1, got ${JSON.stringify(values.region)}`);
    return { config: values.config, kubeconfig: values.kubeconfig, context: values.context, region: values.region, aws: values['no-aws'] !== true };
  });
  let config: AppConfig;
  try {
    config = loadToolConfig(options.config);
  } catch (error) {
    if (!(error instanceof AppConfigError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return PREFLIGHT_EXIT.blockers;
  }
  try {
    const existing = config.cluster.mode === 'existing';
    const kubeConfig = existing ? kubeConfigOf(options) : undefined;
    const [cluster, eks] = await Promise.all([kubeConfig === undefined ? undefined : readClusterFacts(kubeConfig, config), askEks(config, options)]);
    const where = kubeConfig === undefined ? 'a new cluster' : `context ${kubeConfig.getCurrentContext()} (${kubeConfig.getCurrentCluster()?.server ?? ''})`;
    process.stdout.write(`Preflight of ${config.clusterName} (${existing ? `existing cluster, GPU capacity ${config.cluster.mode === 'existing' ? config.cluster.gpuCapacity : ''}` : 'new cluster'}) for ${options.config ?? 'the configuration in cdk.json'}, on ${where}\n\n`);
    const findings = preflightFindings({ config, configFile: options.config, cluster, eks });
    process.stdout.write(`${formatFindings(findings)}\n`);
    return findings.some((f) => f.severity === 'blocker') ? PREFLIGHT_EXIT.blockers : PREFLIGHT_EXIT.clear;
  } catch (error) {
    if (error instanceof ClusterUnreachable) {
      process.stderr.write(`error: ${error.message}\n`);
      return PREFLIGHT_EXIT.unreachable;
    }
    // A kubeconfig that cannot be read or parsed is the same for the user: no cluster to read.
    if (error instanceof Error && /kubeconfig|ENOENT|no such file/i.test(error.message)) {
      process.stderr.write(`error: cannot read the kubeconfig: ${errorMessage(error).split('\n')[0] ?? ''}\n`);
      return PREFLIGHT_EXIT.unreachable;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${errorMessage(error).split('\n')[0] ?? ''}\n`);
      process.exitCode = 1;
    },
  );
}
