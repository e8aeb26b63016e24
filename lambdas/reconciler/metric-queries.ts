import type { MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { PodSignals } from './deletion-cost-policy';
import type { NodeView, PodView } from './pod-view';

/** GetMetricData accepts at most this many queries per call. */
export const MAX_QUERIES_PER_CALL = 500;

export interface MetricStatSettings {
  /** Seconds; also the lookback window, so each series yields one smoothed value. */
  readonly periodSeconds: number;
  readonly stat: string;
}

export interface PodMetricSettings extends MetricStatSettings {
  readonly namespace: string;
  readonly activeRequestsMetric: string;
  readonly cacheHitRateMetric: string;
  readonly avgResponseTimeMetric: string;
  readonly namespaceDimension: string;
  readonly podNameDimension: string;
}

export interface NodeMetricSettings extends MetricStatSettings {
  readonly namespace: string;
  readonly metricName: string;
  readonly clusterName: string;
}

/** Query ids must match ^[a-z][a-zA-Z0-9_]*$ and be unique within a call. */
function queryId(prefix: 'p' | 'n', index: number, part: number): string {
  return `${prefix}${index}_${part}`;
}

function metricStatQuery(
  id: string,
  namespace: string,
  metricName: string,
  dimensions: Readonly<Record<string, string>>,
  settings: MetricStatSettings,
): MetricDataQuery {
  return {
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: namespace,
        MetricName: metricName,
        Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: settings.periodSeconds,
      Stat: settings.stat,
    },
    ReturnData: true,
  };
}

export interface PodMetricPlan {
  readonly queries: readonly MetricDataQuery[];
  signalsFor(podIndex: number, values: ReadonlyMap<string, number>): PodSignals;
}

/** Three queries per pod, keyed by the pod's position in `pods`. */
export function podMetricPlan(pods: readonly PodView[], settings: PodMetricSettings): PodMetricPlan {
  const metrics = [settings.activeRequestsMetric, settings.cacheHitRateMetric, settings.avgResponseTimeMetric];
  const queries = pods.flatMap((pod, index) =>
    metrics.map((metricName, part) =>
      metricStatQuery(
        queryId('p', index, part),
        settings.namespace,
        metricName,
        { [settings.namespaceDimension]: pod.namespace, [settings.podNameDimension]: pod.name },
        settings,
      ),
    ),
  );
  return {
    queries,
    signalsFor(podIndex, values) {
      return {
        activeRequests: values.get(queryId('p', podIndex, 0)),
        cacheHitRate: values.get(queryId('p', podIndex, 1)),
        avgResponseTimeMs: values.get(queryId('p', podIndex, 2)),
      };
    },
  };
}

export interface NodeMetricPlan {
  readonly queries: readonly MetricDataQuery[];
  utilizationFor(nodeIndex: number, values: ReadonlyMap<string, number>): number | undefined;
}

/**
 * One query per node for the node-level series Container Insights publishes
 * with exactly {ClusterName, InstanceId, NodeName}. CloudWatch matches
 * dimension sets exactly, so the per-GPU series (which add GpuDevice) are not
 * read: the node aggregate is what the extender's node score needs.
 */
export function nodeMetricPlan(nodes: readonly NodeView[], settings: NodeMetricSettings): NodeMetricPlan {
  const queries: MetricDataQuery[] = [];
  nodes.forEach((node, index) => {
    if (node.instanceId === undefined) return;
    queries.push(
      metricStatQuery(
        queryId('n', index, 0),
        settings.namespace,
        settings.metricName,
        { ClusterName: settings.clusterName, InstanceId: node.instanceId, NodeName: node.name },
        settings,
      ),
    );
  });
  return {
    queries,
    utilizationFor(nodeIndex, values) {
      return values.get(queryId('n', nodeIndex, 0));
    },
  };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
