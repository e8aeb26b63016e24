// The Grafana dashboard, derived from the CloudWatch dashboard's outcome rows,
// capacity rows and GPU cost row (outcome-widgets.ts, capacity-widgets.ts,
// gpu-cost-widgets.ts): the same panels in the same order, read from
// CloudWatch through Grafana's CloudWatch data source, except the second
// scheduler's own metrics, which come from Prometheus where they are born.
// Nothing is computed twice: the GPU outcome stays the reconciler's.
import * as cloudwatchQuery from '@grafana/grafana-foundation-sdk/cloudwatch';
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as text from '@grafana/grafana-foundation-sdk/text';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { capacityRows } from '../observability/capacity-widgets';
import { gpuCostRows } from '../observability/gpu-cost-widgets';
import { gpuHealthRows } from '../observability/gpu-health-widgets';
import { outcomeGraphs, outcomeTopRow } from '../observability/outcome-widgets';
import { readWidget, type WidgetLine, type WidgetView } from './cloudwatch-widget-json';
import { metricKeyOf, schedulerPromEquivalents, type PromEquivalent, type PromQuery, type SchedulerSeries } from './scheduler-promql';

export interface GrafanaDashboardProps extends SchedulerSeries {
  readonly clusterName: string;
  /** The CloudWatch dashboard's name, linked from the alarms panel. */
  readonly cloudWatchDashboardName: string;
}

/** Grafana data source variables: the user picks their CloudWatch and Prometheus (e.g. Amazon Managed Prometheus) sources. */
const CLOUDWATCH = { type: 'cloudwatch', uid: '${cloudwatch}' } as const;
const PROMETHEUS = { type: 'prometheus', uid: '${prometheus}' } as const;
/** Grafana's grid has 24 columns like CloudWatch's; its rows are shorter. */
const HEIGHT_SCALE = 2;

type PanelBuilder = cog.Builder<dashboard.Panel>;

function cloudWatchTargets(lines: readonly WidgetLine[]): { targets: cloudwatchQuery.MetricsQueryBuilder[]; right: string[] } {
  const right: string[] = [];
  const targets = lines.map((line, index) => {
    const refId = `q${index}`;
    if (line.rightAxis) right.push(refId);
    const query = new cloudwatchQuery.MetricsQueryBuilder()
      .datasource(CLOUDWATCH)
      .refId(refId)
      .queryMode(cloudwatchQuery.QueryMode.Metrics)
      .metricQueryType(cloudwatchQuery.MetricQueryType.Search)
      .region('default')
      .period(String(line.period))
      .id(line.id ?? refId)
      .hide(!line.visible);
    if (line.label) query.label(line.label);
    if (line.kind === 'expression') return query.metricEditorMode(cloudwatchQuery.MetricEditorMode.Code).expression(line.expression);
    return query
      .metricEditorMode(cloudwatchQuery.MetricEditorMode.Builder)
      .namespace(line.namespace)
      .metricName(line.name)
      .dimensions({ ...line.dimensions })
      .matchExact(true)
      .statistic(line.statistic);
  });
  return { targets, right };
}

/**
 * The Prometheus form of a widget whose every metric is one of the second
 * scheduler's: each visible line by dimension value where the widget shows
 * one line per value, the total where it adds them up in an expression.
 */
function prometheusQueries(view: WidgetView, equivalents: Partial<Record<string, PromEquivalent>>): { query: PromQuery; rightAxis: boolean }[] | undefined {
  const metrics = view.lines.filter((line) => line.kind === 'metric');
  const keys = metrics.map((line) => metricKeyOf(line.name));
  if (metrics.length === 0 || keys.some((key) => key === undefined || equivalents[key] === undefined)) return undefined;
  const out: { query: PromQuery; rightAxis: boolean }[] = [];
  const seen = new Set<string>();
  for (const line of view.lines) {
    if (!line.visible) continue;
    const referenced = line.kind === 'metric' ? [line] : metrics.filter((m) => m.id !== undefined && line.expression.includes(m.id));
    const first = referenced[0];
    const key = first && metricKeyOf(first.name);
    const equivalent = key && equivalents[key];
    if (!first || !equivalent) continue;
    const perValue = line.kind === 'metric' && Object.keys(first.dimensions).some((d) => d !== 'service');
    const query = perValue ? equivalent.byDimension : equivalent.total;
    if (seen.has(query.expr)) continue;
    seen.add(query.expr);
    out.push({ query, rightAxis: line.rightAxis });
  }
  return out;
}

function panelFor(view: WidgetView, props: GrafanaDashboardProps, equivalents: Partial<Record<string, PromEquivalent>>): PanelBuilder {
  const height = view.height * HEIGHT_SCALE;
  if (view.type === 'alarm' || view.type === 'other') {
    return new text.PanelBuilder()
      .title(view.title)
      .span(view.width)
      .height(height)
      .mode(text.TextMode.Markdown)
      .content(`CloudWatch alarms are shown on the CloudWatch dashboard **${props.cloudWatchDashboardName}** (docs/deploy.md says what each means).`);
  }
  const promQueries = prometheusQueries(view, equivalents);
  const right: string[] = [];
  let targets: cog.Builder<cog.Dataquery>[];
  if (promQueries) {
    targets = promQueries.map(({ query, rightAxis }, index) => {
      if (rightAxis) right.push(`p${index}`);
      return new prometheus.DataqueryBuilder().datasource(PROMETHEUS).refId(`p${index}`).expr(query.expr).legendFormat(query.legend);
    });
  } else {
    const converted = cloudWatchTargets(view.lines);
    targets = converted.targets;
    right.push(...converted.right);
  }
  if (view.type === 'singleValue') {
    // Over the time range, CloudWatch makes one period of the whole range; Grafana adds up the periods instead.
    const calcs = view.overTimeRange ? ['sum'] : ['lastNotNull'];
    return new stat.PanelBuilder().title(view.title).span(view.width).height(height).targets(targets).reduceOptions(new common.ReduceDataOptionsBuilder().calcs(calcs));
  }
  const panel = new timeseries.PanelBuilder().title(view.title).span(view.width).height(height).targets(targets);
  if (view.stacked) panel.stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal));
  for (const refId of right) panel.overrideByQuery(refId, [{ id: 'custom.axisPlacement', value: common.AxisPlacement.Right }]);
  return panel;
}

/** The dashboard as Grafana imports it (JSON model). */
export function grafanaDashboard(props: GrafanaDashboardProps): dashboard.Dashboard {
  const equivalents = schedulerPromEquivalents(props);
  const rows: { title: string; widgets: readonly cloudwatch.IWidget[] }[] = [
    { title: 'Outcome', widgets: outcomeTopRow([]) },
    { title: 'Capacity', widgets: capacityRows().flat() },
    { title: 'GPU cost', widgets: gpuCostRows().flat() },
    { title: 'GPU health', widgets: gpuHealthRows().flat() },
    { title: 'Outcome over time', widgets: outcomeGraphs().flat() },
  ];
  const builder = new dashboard.DashboardBuilder(`GPU scheduling (${props.clusterName})`)
    // Stable across deploys, so the sidecar replaces it instead of adding copies; Grafana allows 40 characters.
    .uid(`gpu-scheduling-${props.clusterName}`.slice(0, 40))
    .tags(['gpu-scheduling', 'kubernetes'])
    .refresh('1m')
    .time({ from: 'now-6h', to: 'now' })
    .readonly()
    .withVariable(new dashboard.DatasourceVariableBuilder('cloudwatch').label('CloudWatch').type('cloudwatch'))
    .withVariable(new dashboard.DatasourceVariableBuilder('prometheus').label('Prometheus').type('prometheus'));
  for (const row of rows) {
    builder.withRow(new dashboard.RowBuilder(row.title));
    for (const widget of row.widgets) builder.withPanel(panelFor(readWidget(widget), props, equivalents));
  }
  return builder.build();
}

/** Every Prometheus query of the dashboard, with where it is shown. */
export function dashboardPromQueries(model: dashboard.Dashboard): { panel: string; expr: string }[] {
  return dashboardTargets(model).flatMap(({ panel, target }) => (typeof target.expr === 'string' ? [{ panel, expr: target.expr }] : []));
}

/** Every query of the dashboard, with the title of its panel. */
export function dashboardTargets(model: dashboard.Dashboard): { panel: string; target: Record<string, unknown> }[] {
  const panels = (model.panels ?? []).flatMap((p) => ('panels' in p && Array.isArray(p.panels) ? p.panels : [p]));
  return panels.flatMap((panel) => {
    const targets = 'targets' in panel && Array.isArray(panel.targets) ? (panel.targets as unknown as Record<string, unknown>[]) : [];
    return targets.map((target) => ({ panel: String(panel.title ?? ''), target }));
  });
}
