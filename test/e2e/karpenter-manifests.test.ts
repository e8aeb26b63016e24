// The EC2NodeClass, NodePools and chart values the CDK app deploys with
// Karpenter, checked against the real release: the CRDs and chart of
// Karpenter's AWS provider module at KARPENTER_VERSION (from the Go module
// proxy), installed in the harness's kube-apiserver, which validates each
// object (OpenAPI schema and CEL rules) in a server-side dry run.
//
// The AWS NodePool CRD is installed under a group of its own
// (`aws-check.karpenter.sh`): the harness serves `nodepools.karpenter.sh`
// from the kwok provider's copy, which Karpenter's e2e files use, and a CRD's
// schema and rules do not depend on its group name.
import { readFileSync } from 'node:fs';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../cdk/app-config/parse-app-config';
import type { NewClusterConfig } from '../../cdk/app-config/app-config';
import { GPU_NODE_LABELS, GPU_NODE_STARTUP_TAINT } from '../../cdk/lib/cluster/new-gpu-cluster';
import { gpuNodeClass, gpuNodePool, karpenterChartValues } from '../../cdk/lib/karpenter/karpenter-manifests';
import type { KubernetesObject } from '../../cdk/lib/common/kubernetes-object';
import { ensureAwsProviderModule, type AwsProviderModule } from '../../local/builds/karpenter-aws-provider';
import { installCrd, readCrdFile } from '../../local/addons/crds';
import { e2eHarness } from './support/e2e-context';

const harness = e2eHarness();
const CHECK_GROUP = 'aws-check.karpenter.sh';
let awsModule: AwsProviderModule;
let custom: CustomObjectsApi;

function newCluster(raw: unknown): NewClusterConfig {
  const config = parseAppConfig({ cluster: raw });
  if (config.cluster.mode !== 'new') throw new Error('unreachable');
  return config.cluster;
}

/** Creates the object in a dry run: the API server validates it completely and stores nothing. */
async function dryRunCreate(object: KubernetesObject): Promise<void> {
  const [group, version] = String(object.apiVersion).split('/') as [string, string];
  const nodePool = object.kind === 'NodePool';
  await custom.createClusterCustomObject({
    group: nodePool ? CHECK_GROUP : group,
    version,
    plural: nodePool ? 'nodepools' : 'ec2nodeclasses',
    body: nodePool ? { ...object, apiVersion: `${CHECK_GROUP}/${version}` } : object,
    dryRun: 'All',
  });
}

/** The API server's reason for refusing the object. */
async function rejection(object: KubernetesObject): Promise<string> {
  try {
    await dryRunCreate(object);
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    if (typeof body !== 'string') throw error;
    return (JSON.parse(body) as { message?: string }).message ?? body;
  }
  throw new Error(`the API server accepted ${String(object.kind)} ${JSON.stringify(object.metadata)}`);
}

/** Chart values whose keys are the user's (node labels), though the chart's default has some. */
const FREE_FORM_VALUES = new Set(['nodeSelector']);

/** Key paths of `values` the chart does not know: below a free-form map ({} or unset in the chart) anything goes. */
function unknownValueKeys(values: Record<string, unknown>, defaults: unknown, path = ''): string[] {
  if (FREE_FORM_VALUES.has(path)) return [];
  if (typeof defaults !== 'object' || defaults === null || Array.isArray(defaults) || Object.keys(defaults).length === 0) return [];
  const known = defaults as Record<string, unknown>;
  return Object.entries(values).flatMap(([key, value]) => {
    const keyPath = path ? `${path}.${key}` : key;
    if (!(key in known)) return [keyPath];
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? unknownValueKeys(value as Record<string, unknown>, known[key], keyPath) : [];
  });
}

beforeAll(async () => {
  awsModule = await ensureAwsProviderModule();
  custom = harness.kubeConfig.makeApiClient(CustomObjectsApi);
  await installCrd(harness.kubeConfig, readCrdFile(awsModule.ec2NodeClassCrd), awsModule.ec2NodeClassCrd);
  const nodePoolCrd = readCrdFile(awsModule.nodePoolCrd);
  await installCrd(harness.kubeConfig, { ...nodePoolCrd, metadata: { name: `nodepools.${CHECK_GROUP}` }, spec: { ...nodePoolCrd.spec, group: CHECK_GROUP } }, awsModule.nodePoolCrd);
});

describe("Karpenter manifests against the AWS provider's CRDs", () => {
  it('accepts the EC2NodeClass and NodePool of the default configuration', async () => {
    const cluster = newCluster(undefined);
    await dryRunCreate(gpuNodeClass({ clusterName: 'gpu-scheduling', nodeRoleName: 'gpu-scheduling-karpenter-node', securityGroupId: 'sg-0123456789abcdef0', config: cluster.karpenter }));
    for (const pool of cluster.karpenter.nodePools) await dryRunCreate(gpuNodePool({ pool, stackLabels: GPU_NODE_LABELS, startupTaints: [] }));
  });

  it('accepts every option the config allows: exact types, spot, scheduled and per-reason budgets, Never, start-up taint, a pinned AMI', async () => {
    const cluster = newCluster({
      gpuNodeStartupTaint: true,
      karpenter: {
        amiAlias: 'al2023@v20261115',
        diskSizeGiB: 500,
        nodePools: [
          {
            name: 'h100',
            instanceTypes: ['p5.48xlarge', 'p5e.48xlarge'],
            capacityTypes: ['SPOT', 'ON_DEMAND'],
            maxGpus: 64,
            consolidationPolicy: 'WhenEmptyOrUnderutilized',
            consolidateAfter: '1h30m',
            expireAfter: 'Never',
            disruptionBudgets: [
              { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' },
              { nodes: '1', reasons: ['Empty'] },
              { nodes: '20%', schedule: '@daily', duration: '1h30m' },
            ],
            labels: { team: 'research', 'example.com/tier': 'gold' },
            taints: [{ key: 'nvidia.com/gpu', value: 'true' }, { key: 'dedicated', effect: 'NO_EXECUTE' }],
          },
          { name: 'inference', instanceFamilies: ['g6', 'g6e', 'g7e'], taints: [] },
        ],
      },
    });
    await dryRunCreate(gpuNodeClass({ clusterName: 'c', nodeRoleName: 'r', securityGroupId: 'sg-0123456789abcdef0', config: cluster.karpenter }));
    for (const pool of cluster.karpenter.nodePools) await dryRunCreate(gpuNodePool({ pool, stackLabels: GPU_NODE_LABELS, startupTaints: [GPU_NODE_STARTUP_TAINT] }));
  });

  it('is a real check: the API server rejects what Karpenter does not accept', async () => {
    const cluster = newCluster(undefined);
    const [pool] = cluster.karpenter.nodePools;
    if (!pool) throw new Error('no pool');
    const valid = gpuNodePool({ pool, stackLabels: {}, startupTaints: [] }) as { spec: { template: { spec: { requirements: unknown[] } } } };
    // The AWS CRD restricts its label domain to the keys its provider writes.
    const restricted = structuredClone(valid);
    restricted.spec.template.spec.requirements.push({ key: 'karpenter.k8s.aws/not-a-label', operator: 'In', values: ['x'] });
    expect(await rejection(restricted)).toMatch(/label domain "karpenter.k8s.aws" is restricted/);
    // A CEL rule of the CRD (x-kubernetes-validations), not its schema: kept only when the CRD is read through the client's model.
    const unscheduled = structuredClone(valid) as unknown as { spec: { disruption: { budgets: Record<string, unknown>[] } } };
    unscheduled.spec.disruption.budgets = [{ nodes: '1', schedule: '@daily' }];
    expect(await rejection(unscheduled)).toMatch(/'schedule' must be set with 'duration'/);
    const nodeClass = gpuNodeClass({ clusterName: 'c', nodeRoleName: 'r', securityGroupId: 'sg-0123456789abcdef0', config: cluster.karpenter }) as { spec: Record<string, unknown> };
    expect(await rejection({ ...nodeClass, spec: { ...nodeClass.spec, amiSelectorTerms: [{ alias: 'al2023' }] } })).toMatch(/alias/);
  });

  it("names only values the chart's values.yaml has", () => {
    const values = karpenterChartValues({ clusterName: 'c', interruptionQueueName: 'q', systemNodeSelector: { 'gpu-scheduling/node-group': 'system' } });
    const defaults = parse(readFileSync(awsModule.chartValues, 'utf8')) as unknown;
    expect(unknownValueKeys(values, defaults)).toEqual([]);
    // The check itself sees a misspelt key.
    expect(unknownValueKeys({ settings: { interuptionQueue: 'q' } }, defaults)).toEqual(['settings.interuptionQueue']);
  });
});
