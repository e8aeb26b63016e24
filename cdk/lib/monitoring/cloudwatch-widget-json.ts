// Reads the CloudWatch dashboard's own widgets back from the JSON CloudWatch
// stores (`widget.toJson()`), so the Grafana dashboard is derived from them
// and cannot drift: a widget added to the CloudWatch outcome rows appears in
// Grafana too.
import { Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** A metric line: `[namespace, name, dimension, value, …, options]` in the dashboard body. */
export interface WidgetMetric {
  readonly kind: 'metric';
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly statistic: string;
  readonly period: number;
  readonly id: string | undefined;
  readonly label: string | undefined;
  readonly visible: boolean;
  readonly rightAxis: boolean;
}

/** A metric math line: `[{ expression, … }]`. */
export interface WidgetExpression {
  readonly kind: 'expression';
  readonly expression: string;
  readonly period: number;
  readonly id: string | undefined;
  readonly label: string | undefined;
  readonly visible: boolean;
  readonly rightAxis: boolean;
}

export type WidgetLine = WidgetMetric | WidgetExpression;

export interface WidgetView {
  readonly type: 'singleValue' | 'timeSeries' | 'alarm' | 'other';
  readonly title: string;
  readonly width: number;
  readonly height: number;
  readonly stacked: boolean;
  /** A single value over the dashboard's whole time range rather than the latest period. */
  readonly overTimeRange: boolean;
  readonly lines: readonly WidgetLine[];
}

interface LineOptions {
  id?: string;
  label?: string;
  stat?: string;
  period?: number;
  visible?: boolean;
  yAxis?: string;
  expression?: string;
}

const isOptions = (value: unknown): value is LineOptions => typeof value === 'object' && value !== null && !Array.isArray(value);

function readLine(row: readonly unknown[], defaultStat: string, defaultPeriod: number): WidgetLine {
  const last = row.at(-1);
  const options: LineOptions = isOptions(last) ? last : {};
  const common = {
    period: options.period ?? defaultPeriod,
    id: options.id,
    label: options.label,
    visible: options.visible !== false,
    rightAxis: options.yAxis === 'right',
  };
  if (typeof options.expression === 'string' && row.length === 1) return { kind: 'expression', expression: options.expression, ...common };
  const parts = (isOptions(last) ? row.slice(0, -1) : row).map(String);
  const [namespace, name, ...dims] = parts;
  if (!namespace || !name || dims.length % 2 !== 0) throw new Error(`unreadable CloudWatch metric line ${JSON.stringify(row)}`);
  const dimensions: Record<string, string> = {};
  for (let i = 0; i < dims.length; i += 2) dimensions[dims[i] as string] = dims[i + 1] as string;
  return { kind: 'metric', namespace, name, dimensions, statistic: options.stat ?? defaultStat, ...common };
}

/** The widget as CloudWatch stores it, tokens resolved. */
export function readWidget(widget: cloudwatch.IWidget): WidgetView {
  // The JSON holds a region token; a throwaway stack resolves it (the region is not carried over).
  const [json] = new Stack().resolve(widget.toJson()) as [{ type: string; width: number; height: number; properties: Record<string, unknown> }];
  if (!json) throw new Error('a CloudWatch widget rendered to no JSON');
  const props = json.properties;
  const title = typeof props.title === 'string' ? props.title : '';
  const base = { title, width: json.width, height: json.height, stacked: props.stacked === true, overTimeRange: props.setPeriodToTimeRange === true };
  if (json.type === 'alarm') return { ...base, type: 'alarm', lines: [] };
  if (json.type !== 'metric') return { ...base, type: 'other', lines: [] };
  // CloudWatch's defaults for a line that names no statistic or period.
  const stat = typeof props.stat === 'string' ? props.stat : 'Average';
  const period = typeof props.period === 'number' ? props.period : 300;
  const rows = Array.isArray(props.metrics) ? (props.metrics as unknown[][]) : [];
  return { ...base, type: props.view === 'singleValue' ? 'singleValue' : 'timeSeries', lines: rows.map((row) => readLine(row, stat, period)) };
}
