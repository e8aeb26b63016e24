import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import type { KarpenterConfig } from '../../../../../cdk/app-config/app-config';
import { GPU_NODE_LABELS, GPU_NODE_STARTUP_TAINT } from '../../../../../cdk/lib/cluster/new-gpu-cluster';
import { DISCOVERY_TAG, gpuNodeClass, gpuNodePool, karpenterChartValues } from '../../../../../cdk/lib/karpenter/karpenter-manifests';

function karpenterConfig(raw: unknown): KarpenterConfig {
  const config = parseAppConfig({ cluster: { karpenter: raw } });
  if (config.cluster.mode !== 'new') throw new Error('unreachable');
  return config.cluster.karpenter;
}

describe('gpuNodeClass', () => {
  it('selects the AL2023 alias, the tagged subnets and the cluster security group, with an encrypted gp3 root disk and IMDSv2', () => {
    const nodeClass = gpuNodeClass({ clusterName: 'c1', nodeRoleName: 'node-role', securityGroupId: 'sg-1', config: karpenterConfig({ diskSizeGiB: 200 }) });
    expect(nodeClass).toMatchObject({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      spec: {
        role: 'node-role',
        amiSelectorTerms: [{ alias: 'al2023@latest' }],
        subnetSelectorTerms: [{ tags: { [DISCOVERY_TAG]: 'c1' } }],
        securityGroupSelectorTerms: [{ id: 'sg-1' }],
        metadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 1 },
        blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '200Gi', volumeType: 'gp3', encrypted: true } }],
      },
    });
  });
});

describe('gpuNodePool', () => {
  const [defaultPool] = karpenterConfig(undefined).nodePools;
  if (!defaultPool) throw new Error('no default pool');

  it('launches only NVIDIA instances of the default families, on demand, tainted like the GPU node groups and capped in GPUs', () => {
    const pool = gpuNodePool({ pool: defaultPool, stackLabels: GPU_NODE_LABELS, startupTaints: [] }) as { spec: Record<string, unknown> };
    expect(pool).toMatchObject({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'gpu' } });
    expect(pool.spec).toEqual({
      template: {
        metadata: { labels: { 'gpu-scheduling/accelerator': 'nvidia' } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'gpu' },
          requirements: [
            { key: 'karpenter.k8s.aws/instance-gpu-manufacturer', operator: 'In', values: ['nvidia'] },
            { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g5', 'g6', 'g6e'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
          ],
          taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
          expireAfter: '720h',
        },
      },
      limits: { 'nvidia.com/gpu': '16' },
      disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m', budgets: [{ nodes: '10%' }] },
    });
  });

  it('writes exact types, spot, scheduled budgets, own labels and the start-up taint the labeler lifts', () => {
    const [configured] = karpenterConfig({
      nodePools: [
        {
          name: 'h100',
          instanceTypes: ['p5.48xlarge'],
          capacityTypes: ['SPOT', 'ON_DEMAND'],
          maxGpus: 64,
          consolidationPolicy: 'WhenEmptyOrUnderutilized',
          disruptionBudgets: [{ nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * mon-fri', duration: '8h' }],
          labels: { team: 'research' },
          taints: [{ key: 'dedicated', value: 'research', effect: 'NO_EXECUTE' }],
        },
      ],
    }).nodePools;
    if (!configured) throw new Error('no pool');
    const pool = gpuNodePool({ pool: configured, stackLabels: GPU_NODE_LABELS, startupTaints: [GPU_NODE_STARTUP_TAINT] });
    expect(pool).toMatchObject({
      metadata: { name: 'h100' },
      spec: {
        template: {
          metadata: { labels: { team: 'research', 'gpu-scheduling/accelerator': 'nvidia' } },
          spec: {
            requirements: [
              { key: 'karpenter.k8s.aws/instance-gpu-manufacturer', values: ['nvidia'] },
              { key: 'node.kubernetes.io/instance-type', values: ['p5.48xlarge'] },
              { key: 'karpenter.sh/capacity-type', values: ['spot', 'on-demand'] },
              { key: 'kubernetes.io/os' },
            ],
            taints: [{ key: 'dedicated', value: 'research', effect: 'NoExecute' }],
            startupTaints: [{ key: GPU_NODE_STARTUP_TAINT.key, value: 'true', effect: 'NoSchedule' }],
          },
        },
        limits: { 'nvidia.com/gpu': '64' },
        disruption: {
          consolidationPolicy: 'WhenEmptyOrUnderutilized',
          budgets: [{ nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * mon-fri', duration: '8h' }],
        },
      },
    });
  });

  it('does not add a start-up taint the pool already has as a taint, and writes no empty taint list', () => {
    const pool = gpuNodePool({ pool: { ...defaultPool, taints: [GPU_NODE_STARTUP_TAINT] }, stackLabels: {}, startupTaints: [GPU_NODE_STARTUP_TAINT] });
    const spec = (pool.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(spec.startupTaints).toBeUndefined();
    const untainted = gpuNodePool({ pool: { ...defaultPool, taints: [] }, stackLabels: {}, startupTaints: [] });
    expect((untainted.spec as { template: { spec: Record<string, unknown> } }).template.spec).not.toHaveProperty('taints');
  });
});

describe('karpenterChartValues', () => {
  it('names the cluster and queue and pins the controller to the system nodes, keeping the chart affinity', () => {
    const values = karpenterChartValues({ clusterName: 'c1', interruptionQueueName: 'q1', systemNodeSelector: { 'gpu-scheduling/node-group': 'system' } });
    expect(values).toMatchObject({
      settings: { clusterName: 'c1', interruptionQueue: 'q1' },
      serviceAccount: { create: true, name: 'karpenter' },
      nodeSelector: { 'kubernetes.io/os': 'linux', 'gpu-scheduling/node-group': 'system' },
    });
    expect(values).not.toHaveProperty('affinity');
  });
});
