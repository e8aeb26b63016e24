import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../../../../cli/command-line';
import { COST_CLI, costMarkdown, readCostOptions } from '../../../../cdk/tools/cost-cli';
import { PRICES_RECORDED_ON } from '../../../../cdk/cost/aws-prices';

const options = (argv: string[]) => readCostOptions(parseCommandLine(COST_CLI, argv));

describe('npm run cost', () => {
  it('needs the size: GPU nodes and opted-in pods, as whole numbers', () => {
    expect(() => options(['--pods', '3'])).toThrow(new UsageError('--gpu-nodes is required'));
    expect(() => options(['--gpu-nodes', '3'])).toThrow(new UsageError('--pods is required'));
    expect(() => options(['--gpu-nodes', '2.5', '--pods', '3'])).toThrow(/--gpu-nodes must be a whole number/);
    expect(options(['--gpu-nodes', '50', '--pods', '100'])).toEqual({ config: undefined, gpuNodes: 50, optedInPods: 100, gpuPodsScheduledPerDay: 10_000, markdown: false });
  });

  it('--markdown says which configuration, size and prices the table is at', () => {
    const text = costMarkdown(options(['--gpu-nodes', '50', '--pods', '100', '--markdown', '--config', 'cdk/app-config/example-existing-cluster.yaml']));
    expect(text.split('\n')[0]).toBe(
      `USD a month for an existing cluster (\`cdk/app-config/example-existing-cluster.yaml\`), 50 GPU nodes, 100 pods opted in to deletion costs, 10,000 GPU pods scheduled a day; AWS list prices in us-east-1 recorded ${PRICES_RECORDED_ON}:`,
    );
    expect(text).toMatch(/\| Reconciler GetMetricData \| .* \| 153\.30 \|/);
  });
});
