import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import { kueueChartValues } from '../../../../../cdk/lib/kueue/kueue';
import { kueueStackObjects } from '../../../../../cdk/lib/kueue/kueue-flavors';
import { flavorName, kueueClusterQueue, kueueResourceFlavor, kueueTopology } from '../../../../../cdk/lib/kueue/kueue-objects';
import { KUEUE_VERSION } from '../../../../../cdk/lib/kueue/kueue-release';

describe('KUEUE_VERSION', () => {
  it('is the release the local harness builds, runs and checks the objects against', () => {
    const goMod = readFileSync(new URL('../../../../../local/builds/go-modules/kueue-binaries/go.mod', import.meta.url), 'utf8');
    expect(/^\s*(?:require\s+)?sigs\.k8s\.io\/kueue\s+v(\d+\.\d+\.\d+)\s*$/m.exec(goMod)?.[1]).toBe(KUEUE_VERSION);
  });
});

describe('Kueue objects', () => {
  it('a Topology of EKS network layers 1-3, the hostname only when asked', () => {
    const levels = (withHostname: boolean) => (kueueTopology('t', withHostname).spec as { levels: { nodeLabel: string }[] }).levels.map((l) => l.nodeLabel);
    expect(levels(false)).toEqual(['topology.k8s.aws/network-node-layer-1', 'topology.k8s.aws/network-node-layer-2', 'topology.k8s.aws/network-node-layer-3']);
    expect(levels(true).at(-1)).toBe('kubernetes.io/hostname');
  });

  it('flavors key on the instance-type label every node has, with the taints as tolerations', () => {
    expect(kueueResourceFlavor({ instanceType: 'p5.48xlarge', topologyName: 'eks-network', tolerations: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] })).toEqual({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'p5-48xlarge' },
      spec: {
        nodeLabels: { 'node.kubernetes.io/instance-type': 'p5.48xlarge' },
        topologyName: 'eks-network',
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }],
      },
    });
    expect(() => flavorName('P5 48xlarge')).toThrow(/not an EC2 instance type/);
  });

  it('a ClusterQueue meters GPUs per flavor and refuses quotas that are not whole GPUs or name a type twice', () => {
    const queue = kueueClusterQueue({ name: 'team', cohort: 'all', quotas: [{ instanceType: 'p5.48xlarge', gpus: 16, borrowingLimit: 8 }] });
    expect(queue.spec).toMatchObject({
      cohortName: 'all',
      resourceGroups: [{ coveredResources: ['cpu', 'memory', 'nvidia.com/gpu'], flavors: [{ name: 'p5-48xlarge', resources: [{ name: 'cpu' }, { name: 'memory' }, { name: 'nvidia.com/gpu', nominalQuota: 16, borrowingLimit: 8 }] }] }],
    });
    expect(() => kueueClusterQueue({ name: 'q', quotas: [{ instanceType: 'p5.48xlarge', gpus: 1.5 }] })).toThrow(/whole number of GPUs/);
    expect(() => kueueClusterQueue({ name: 'q', quotas: [{ instanceType: 'p5.48xlarge', gpus: 8 }, { instanceType: 'p5.48xlarge', gpus: 8 }] })).toThrow(/twice/);
    expect(() => kueueClusterQueue({ name: 'q', quotas: [] })).toThrow(/no GPU quota/);
  });
});

describe('the stack\'s Kueue objects and chart values', () => {
  const config = parseAppConfig({
    addons: { kueue: { enabled: true, podsReadyTimeout: '15m' } },
    cluster: {
      gpuCapacity: 'karpenter',
      gpuNodeGroups: [{ name: 'fleet', instanceTypes: ['p4d.24xlarge'] }],
      karpenter: { nodePools: [{ name: 'h100', instanceTypes: ['p5.48xlarge', 'p4d.24xlarge'] }, { name: 'small', instanceFamilies: ['g6'] }] },
    },
  });

  it('one flavor per GPU instance type named by a node group or NodePool, each on the network Topology', () => {
    const objects = kueueStackObjects(config);
    expect(objects.map((o) => `${String(o.kind)}/${String((o.metadata as { name: string }).name)}`)).toEqual(['Topology/eks-network', 'ResourceFlavor/p4d-24xlarge', 'ResourceFlavor/p5-48xlarge']);
    expect((objects[2]?.spec as { tolerations: unknown[] }).tolerations).toEqual([{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }]);
  });

  it('the chart runs Kueue for Jobs that name a queue, with waitForPodsReady', () => {
    const values = kueueChartValues(config) as { managerConfig: { controllerManagerConfigYaml: string } };
    expect(parse(values.managerConfig.controllerManagerConfigYaml)).toMatchObject({
      apiVersion: 'config.kueue.x-k8s.io/v1beta2',
      manageJobsWithoutQueueName: false,
      integrations: { frameworks: ['batch/job'] },
      waitForPodsReady: { timeout: '15m', blockAdmission: true },
    });
  });

  it('is off by default and refuses a timeout that is not a duration', () => {
    expect(parseAppConfig({}).addons.kueue.enabled).toBe(false);
    expect(() => parseAppConfig({ addons: { kueue: { podsReadyTimeout: 'ten minutes' } } })).toThrow(/podsReadyTimeout/);
  });
});
