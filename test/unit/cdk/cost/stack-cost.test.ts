import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import { AWS_PRICES } from '../../../../cdk/cost/aws-prices';
import { COST_ASSUMPTIONS, costMarkdownTable, stackCost, type ClusterSize } from '../../../../cdk/cost/stack-cost';

const EXISTING = {
  mode: 'existing',
  existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['eu-west-1a', 'eu-west-1b'], privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'], clusterSecurityGroupId: 'sg-0123456789abcdef0' },
};
const SIZE: ClusterSize = { gpuNodes: 4, optedInPods: 20, gpuPodsScheduledPerDay: 10_000 };
const line = (cost: ReturnType<typeof stackCost>, item: string) => cost.lines.find((l) => l.item.startsWith(item));

describe('stackCost', () => {
  it('reads 3 metrics per opted-in pod and 1 per GPU node every run: 50 nodes and 100 pods read 15.3 M metrics, $153 a month', () => {
    const cost = stackCost(parseAppConfig({ cluster: EXISTING }), { gpuNodes: 50, optedInPods: 100, gpuPodsScheduledPerDay: 10_000 });
    expect(line(cost, 'Reconciler GetMetricData')?.usd).toBeCloseTo(43_800 * 350 * 0.01 / 1000, 6);
    expect(line(cost, 'Reconciler GetMetricData')?.usd).toBeCloseTo(153.3, 2);
    // Runs follow the schedule: every 5 minutes reads a fifth as often.
    const slower = stackCost(parseAppConfig({ cluster: EXISTING, reconciler: { scheduleMinutes: 5 } }), { gpuNodes: 50, optedInPods: 100, gpuPodsScheduledPerDay: 10_000 });
    expect(line(slower, 'Reconciler GetMetricData')?.usd).toBeCloseTo(153.3 / 5, 2);
  });

  it('prices Container Insights per node, GPU and system, and drops it when the add-on is off', () => {
    const perNode = COST_ASSUMPTIONS.containerInsightsObservationsPerNodeMinute * 730 * 60 / 1e6 * AWS_PRICES.containerInsightsObservations.usd;
    const existing = parseAppConfig({ cluster: EXISTING });
    expect(line(stackCost(existing, { ...SIZE, gpuNodes: 50 }), 'Container Insights')?.usd).toBeCloseTo(50 * perNode, 6);
    // A new cluster's two system nodes run the agent too.
    expect(line(stackCost(parseAppConfig({}), SIZE), 'Container Insights')?.usd).toBeCloseTo(6 * perNode, 6);
    const off = stackCost(parseAppConfig({ cluster: EXISTING, addons: { cloudWatchObservability: { enabled: false } } }), SIZE);
    expect(line(off, 'Container Insights')).toBeUndefined();
    expect(off.notIncluded.join(' ')).toMatch(/Container Insights: `addons.cloudWatchObservability.enabled: false`/);
  });

  it('adds the control plane, NAT, endpoints and system nodes for a new cluster only', () => {
    const fresh = stackCost(parseAppConfig({}), SIZE);
    expect(line(fresh, 'EKS control plane')?.usd).toBeCloseTo(73, 6);
    expect(line(fresh, 'NAT gateways')?.usd).toBeCloseTo(730 * (0.045 + 0.005) + 20 * 0.045, 6);
    expect(line(fresh, 'VPC interface endpoints')?.usd).toBe(0);
    expect(line(fresh, 'Karpenter interruption queue')).toBeDefined();
    const endpoints = stackCost(parseAppConfig({ cluster: { awsApiAccess: 'vpc-endpoints' } }), SIZE);
    expect(line(endpoints, 'VPC interface endpoints')?.usd).toBeCloseTo(3 * 2 * 730 * 0.01, 6);
    const attached = stackCost(parseAppConfig({ cluster: EXISTING }), SIZE);
    expect(attached.lines.map((l) => l.item)).not.toEqual(expect.arrayContaining(['EKS control plane']));
    expect(attached.lines.some((l) => /NAT|System node|interruption/.test(l.item))).toBe(false);
  });

  it('scales the extender and ALB with the GPU pods scheduled, and adds provisioned concurrency when configured', () => {
    const config = parseAppConfig({ cluster: EXISTING });
    const base = stackCost(config, SIZE);
    const busier = stackCost(config, { ...SIZE, gpuPodsScheduledPerDay: 100_000 });
    expect(line(busier, 'Extender Lambda')?.usd ?? 0).toBeCloseTo((line(base, 'Extender Lambda')?.usd ?? 0) * 10, 6);
    expect(line(busier, 'ALB')?.usd ?? 0).toBeGreaterThan(line(base, 'ALB')?.usd ?? 0);
    const warm = stackCost(parseAppConfig({ cluster: EXISTING, extender: { provisionedConcurrency: 2 } }), SIZE);
    expect(line(warm, 'Extender provisioned concurrency')?.usd).toBeCloseTo(2 * (1769 / 1024) * 730 * 3600 * AWS_PRICES.lambdaArmProvisioned.usd, 6);
    expect(line(base, 'Extender provisioned concurrency')).toBeUndefined();
  });

  it('totals its lines and renders them as a Markdown table', () => {
    const cost = stackCost(parseAppConfig({ monitoring: { podMonitor: { enabled: true } } }), SIZE);
    expect(cost.totalUsd).toBeCloseTo(cost.lines.reduce((sum, l) => sum + l.usd, 0), 9);
    expect(line(cost, 'Managed Prometheus')?.usd).toBeCloseTo(2 * 10.6 * 0.9, 6);
    const table = costMarkdownTable(cost);
    expect(table.split('\n')[0]).toBe('| Item | What is billed | $ / month |');
    expect(table).toContain(`| **Total** | | **${cost.totalUsd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}** |`);
  });
});
