import type { CloudFormationTemplate } from './synthesize';
import { renderCfnString, resourcesOfType } from './synthesize';

/** A metric a dashboard widget or an alarm reads. */
export interface MetricReference {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly where: string;
}

export interface ExpressionReference {
  readonly expression: string;
  readonly where: string;
}

export interface References {
  readonly metrics: MetricReference[];
  readonly expressions: ExpressionReference[];
}

/** Metrics and math/search expressions in every dashboard body of the template. */
export function dashboardReferences(json: CloudFormationTemplate): References {
  const metrics: MetricReference[] = [];
  const expressions: ExpressionReference[] = [];
  for (const [id, properties] of resourcesOfType(json, 'AWS::CloudWatch::Dashboard')) {
    const body = JSON.parse(renderCfnString(properties.DashboardBody)) as { widgets: { properties: { title?: string; metrics?: unknown[][] } }[] };
    for (const widget of body.widgets) {
      const where = `${id} widget "${widget.properties.title ?? ''}"`;
      for (const row of widget.properties.metrics ?? []) {
        const [first] = row;
        if (typeof first === 'object' && first !== null && 'expression' in first) {
          expressions.push({ expression: String((first as { expression: unknown }).expression), where });
          continue;
        }
        const plain = row.filter((item): item is string => typeof item === 'string');
        if (plain.includes('.')) throw new Error(`${where}: "." shorthand is not understood by this check`);
        const [namespace, metricName, ...pairs] = plain;
        const dimensions: Record<string, string> = {};
        for (let index = 0; index + 1 < pairs.length; index += 2) dimensions[pairs[index] ?? ''] = pairs[index + 1] ?? '';
        metrics.push({ namespace: namespace ?? '', metricName: metricName ?? '', dimensions, where });
      }
    }
  }
  return { metrics, expressions };
}

interface AlarmMetric {
  readonly Namespace: string;
  readonly MetricName: string;
  readonly Dimensions?: { Name: string; Value: unknown }[];
}

function toReference(metric: AlarmMetric, where: string): MetricReference {
  const dimensions: Record<string, string> = {};
  for (const dimension of metric.Dimensions ?? []) dimensions[dimension.Name] = renderCfnString(dimension.Value);
  return { namespace: metric.Namespace, metricName: metric.MetricName, dimensions, where };
}

/** Metrics and expressions of every alarm (single-metric or metric-math). */
export function alarmReferences(json: CloudFormationTemplate): References {
  const metrics: MetricReference[] = [];
  const expressions: ExpressionReference[] = [];
  for (const [id, properties] of resourcesOfType(json, 'AWS::CloudWatch::Alarm')) {
    if (typeof properties.MetricName === 'string') {
      metrics.push(toReference(properties as unknown as AlarmMetric, id));
    }
    for (const query of (properties.Metrics as { Expression?: string; MetricStat?: { Metric: AlarmMetric } }[] | undefined) ?? []) {
      if (query.Expression !== undefined) expressions.push({ expression: query.Expression, where: id });
      if (query.MetricStat) metrics.push(toReference(query.MetricStat.Metric, id));
    }
  }
  return { metrics, expressions };
}
