import { describe, expect, it } from 'vitest';
import { dashboardPromQueries, dashboardTargets, grafanaDashboard } from '../../../../../cdk/lib/monitoring/grafana-dashboard';
import { readWidget } from '../../../../../cdk/lib/monitoring/cloudwatch-widget-json';
import { gpuHealthRows } from '../../../../../cdk/lib/observability/gpu-health-widgets';
import { capacityRows } from '../../../../../cdk/lib/observability/capacity-widgets';
import { gpuCostRows } from '../../../../../cdk/lib/observability/gpu-cost-widgets';
import { outcomeGraphs, outcomeTopRow } from '../../../../../cdk/lib/observability/outcome-widgets';
import { METRIC } from '../../../../../lambdas/observability/metric-catalog';
import { catalogMismatch } from '../../support/metric-coverage';

const model = grafanaDashboard({ clusterName: 'prod-gpu', cloudWatchDashboardName: 'prod-gpu-gpu-scheduling', job: 'kube-system/gpu-scheduler-metrics', profile: 'gpu-scheduler' });
type Panel = { type: string; title?: string; gridPos?: { w: number; y: number }; targets?: Record<string, unknown>[] };
const panels = (model.panels ?? []) as Panel[];
const rowIndex = (title: string) => panels.findIndex((p) => p.type === 'row' && p.title === title);
const SCHEDULER_METRICS: string[] = [METRIC.gpuSchedulerAttempts, METRIC.gpuSchedulerAttemptLatency, METRIC.gpuSchedulerPendingPods, METRIC.gpuSchedulerReadyReplicas].map((m) => m.name);

describe('the Grafana dashboard', () => {
  it('opens with the CloudWatch dashboard\'s outcome row: the same panels, in the same order and widths', () => {
    const first = panels.slice(rowIndex('Outcome') + 1, rowIndex('Capacity'));
    const cloudWatch = outcomeTopRow([]).map(readWidget);
    expect(first.map((p) => p.title)).toEqual(cloudWatch.map((w) => w.title));
    expect(first.map((p) => p.gridPos?.w)).toEqual(cloudWatch.map((w) => w.width));
    expect(new Set(first.map((p) => p.gridPos?.y)).size).toBe(1);
  });

  it('then the capacity rows, the GPU cost row, the GPU health row, then every graph of the CloudWatch outcome rows', () => {
    const capacity = panels.slice(rowIndex('Capacity') + 1, rowIndex('GPU cost'));
    expect(capacity.map((p) => p.title)).toEqual(capacityRows().flat().map((w) => readWidget(w).title));
    // A CloudWatch value over the whole time range is Grafana's sum of the periods; the others are the latest.
    const calcs = (title: string) => (capacity.find((p) => p.title === title) as { options?: { reduceOptions?: { calcs?: string[] } } }).options?.reduceOptions?.calcs;
    expect(calcs('Over the time range: launched, idle GPU-hours, $')).toEqual(['sum']);
    expect(calcs('GPU nodes now: count, $ per hour')).toEqual(['lastNotNull']);
    const cost = panels.slice(rowIndex('GPU cost') + 1, rowIndex('GPU health'));
    expect(cost.map((p) => p.title)).toEqual(gpuCostRows().flat().map((w) => readWidget(w).title));
    const health = panels.slice(rowIndex('GPU health') + 1, rowIndex('Outcome over time'));
    expect(health.map((p) => p.title)).toEqual(gpuHealthRows().flat().map((w) => readWidget(w).title));
    const rest = panels.slice(rowIndex('Outcome over time') + 1);
    expect(rest.map((p) => p.title)).toEqual(outcomeGraphs().flat().map((w) => readWidget(w).title));
  });

  it('reads only metrics the Lambdas emit from CloudWatch, with their dimensions, and every math expression names queries of its panel', () => {
    const problems: string[] = [];
    for (const panel of panels.filter((p) => p.targets)) {
      const targets = (panel.targets ?? []).filter((t) => (t.datasource as { type: string }).type === 'cloudwatch');
      const ids = new Set(targets.map((t) => t.id));
      for (const t of targets) {
        if (typeof t.expression === 'string' && t.expression !== '') {
          // A SEARCH names its metrics inside its quoted arguments, which are no query ids.
          const names = t.expression.replace(/'[^']*'/g, '').match(/\b[a-z][A-Za-z0-9_]*\b/g) ?? [];
          const unknown = names.filter((n) => !['FILL'].includes(n) && !ids.has(n));
          if (unknown.length) problems.push(`${panel.title}: ${t.expression} names ${unknown.join(', ')}`);
          continue;
        }
        const problem = catalogMismatch({ namespace: String(t.namespace), metricName: String(t.metricName), dimensions: t.dimensions as Record<string, string>, where: String(panel.title) });
        if (problem) problems.push(`${panel.title}: ${problem}`);
        expect(t.matchExact, panel.title).toBe(true);
      }
    }
    expect(problems).toEqual([]);
  });

  it('takes the second scheduler\'s metrics from Prometheus, never the reconciler\'s copies in CloudWatch', () => {
    const cloudWatchNames = dashboardTargets(model).map(({ target }) => target.metricName).filter((n): n is string => typeof n === 'string');
    expect(cloudWatchNames.length).toBeGreaterThan(10);
    expect(cloudWatchNames.filter((n) => SCHEDULER_METRICS.includes(n))).toEqual([]);
    const prom = dashboardPromQueries(model);
    expect(prom.map((q) => q.panel)).toEqual(expect.arrayContaining(['gpu-scheduler: attempts, ready replicas', 'gpu-scheduler attempts by result', 'gpu-scheduler queue (pending pods by queue)', 'gpu-scheduler ready replicas']));
    for (const { expr } of prom) expect(expr).toContain('job="kube-system/gpu-scheduler-metrics"');
    // Attempts are the gpu-scheduler profile's only: a second profile's would not count.
    for (const { expr } of prom.filter((q) => q.expr.includes('scheduler_schedule_attempts_total'))) expect(expr).toContain('profile="gpu-scheduler"');
  });

  it('lets the user pick the CloudWatch and Prometheus data sources, and keeps one uid per cluster', () => {
    expect(model.templating?.list?.map((v) => [v.name, v.type, v.query])).toEqual([
      ['cloudwatch', 'datasource', 'cloudwatch'],
      ['prometheus', 'datasource', 'prometheus'],
    ]);
    expect(model.uid).toBe('gpu-scheduling-prod-gpu');
    const long = grafanaDashboard({ clusterName: 'x'.repeat(100), cloudWatchDashboardName: 'd', job: 'j', profile: 'p' });
    expect(long.uid?.length).toBe(40);
  });
});
