import type { Env } from '../env';
import { ConfigError, envBoolean, envDuration, envInt, envNumber, envOptionalString, envString } from '../env';
import { CLUSTER_NAME_PATTERN } from '../kube';
import { NODE_ANNOTATION, NODE_LABEL } from '../scheduling/keys';
import { parseLabelSelector } from '../scheduling/label-selector';
import { SEED_DELETION_COST_POLICY } from './deletion-cost-policy';
import { INT32_MAX, INT32_MIN } from './int32';
import { podNamespacesFromEnv } from './pod-namespaces';
import { gpuPricesFromEnv, reservationPricesFromEnv } from './gpu-prices';
import { DEFAULT_COST_TOP_NAMESPACES } from './namespace-cost';
import type { ClusterSelection } from './kube-objects';
import type { ReconcilerSettings } from './reconcile';

export interface ReconcilerConfig {
  readonly settings: ReconcilerSettings;
  readonly selection: ClusterSelection;
}

/** The opt-in label pods carry (set it on the Deployment's pod template). */
export const OPT_IN_LABEL = 'gpu.nvidia.com/deletion-cost';
export const DEFAULT_POD_SELECTOR = `${OPT_IN_LABEL}=enabled`;

const CLOUDWATCH_NAME = { pattern: /[^\s:][^:]{0,254}/, description: 'a CloudWatch name, 1..255 characters, no colon' };
const STAT = {
  pattern: /Average|Sum|Minimum|Maximum|SampleCount|p\d{1,2}(\.\d{1,2})?/,
  description: 'a CloudWatch statistic: Average, Sum, Minimum, Maximum, SampleCount or pNN',
};
const MINUTE_MS = 60_000;
/** A pod's spec.schedulerName: a DNS subdomain. */
const SCHEDULER_NAME = { pattern: /[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/, description: 'a scheduler name (DNS subdomain, e.g. gpu-scheduler)' };

/** Reads every setting from the environment; a bad value throws ConfigError naming the variable. */
export function reconcilerConfigFromEnv(env: Env): ReconcilerConfig {
  const lookbackMs = envDuration(env, 'METRICS_LOOKBACK', { default: 5 * MINUTE_MS, minMs: MINUTE_MS, maxMs: 60 * MINUTE_MS });
  if (lookbackMs % MINUTE_MS !== 0) {
    throw new ConfigError('METRICS_LOOKBACK', env.METRICS_LOOKBACK, 'whole minutes (CloudWatch periods are multiples of 60 s), 1m..1h');
  }
  const stat = envString(env, 'METRICS_STAT', { default: 'Average', ...STAT });
  const metricStat = { periodSeconds: lookbackMs / 1000, stat };

  const fastLatencyMs = envNumber(env, 'FAST_LATENCY_MS', { default: SEED_DELETION_COST_POLICY.fastLatencyMs, min: 0 });
  const moderateLatencyMs = envNumber(env, 'MODERATE_LATENCY_MS', { default: SEED_DELETION_COST_POLICY.moderateLatencyMs, min: 0 });
  if (moderateLatencyMs < fastLatencyMs) {
    throw new ConfigError('MODERATE_LATENCY_MS', String(moderateLatencyMs), `a number >= FAST_LATENCY_MS (${fastLatencyMs})`);
  }
  const int32 = { min: INT32_MIN, max: INT32_MAX };

  const nodesEnabled = envBoolean(env, 'NODE_UTILIZATION_ENABLED', { default: true });
  // CLUSTER_NAME is the Container Insights ClusterName dimension; it is also
  // what the EKS connection uses, so it is normally set anyway.
  const clusterName = nodesEnabled
    ? envString(env, 'CLUSTER_NAME', {
        pattern: CLUSTER_NAME_PATTERN,
        description: 'the EKS cluster name (Container Insights ClusterName); or set NODE_UTILIZATION_ENABLED=false',
      })
    : (envOptionalString(env, 'CLUSTER_NAME') ?? '');

  const podLabelSelector = envString(env, 'POD_SELECTOR', { default: DEFAULT_POD_SELECTOR });
  const parsedSelector = parseLabelSelector(podLabelSelector);
  if (!parsedSelector.ok) throw new ConfigError('POD_SELECTOR', podLabelSelector, `a label selector (${parsedSelector.error})`);

  return {
    selection: {
      podLabelSelector,
      podSelector: parsedSelector.selector,
      namespaces: podNamespacesFromEnv(env),
      nodeLabelSelector: envString(env, 'NODE_SELECTOR', { default: NODE_LABEL.gpuCount }),
      pageSize: envInt(env, 'LIST_PAGE_SIZE', { default: 500, min: 1, max: 5000 }),
    },
    settings: {
      policy: {
        activeRequestsWeight: envNumber(env, 'COST_WEIGHT_ACTIVE_REQUESTS', { default: SEED_DELETION_COST_POLICY.activeRequestsWeight }),
        cacheHitRateWeight: envNumber(env, 'COST_WEIGHT_CACHE_HIT_RATE', { default: SEED_DELETION_COST_POLICY.cacheHitRateWeight }),
        fastLatencyMs,
        fastLatencyBonus: envNumber(env, 'FAST_LATENCY_BONUS', { default: SEED_DELETION_COST_POLICY.fastLatencyBonus }),
        moderateLatencyMs,
        moderateLatencyBonus: envNumber(env, 'MODERATE_LATENCY_BONUS', { default: SEED_DELETION_COST_POLICY.moderateLatencyBonus }),
        maxCost: envInt(env, 'MAX_DELETION_COST', { default: SEED_DELETION_COST_POLICY.maxCost, ...int32 }),
        warmupSeconds: envDuration(env, 'WARMUP_PERIOD', { default: SEED_DELETION_COST_POLICY.warmupSeconds * 1000, maxMs: 24 * 60 * MINUTE_MS }) / 1000,
        warmupCost: envInt(env, 'WARMUP_DELETION_COST', { default: SEED_DELETION_COST_POLICY.warmupCost, ...int32 }),
        noSignalCost: envInt(env, 'NO_SIGNAL_DELETION_COST', { default: SEED_DELETION_COST_POLICY.noSignalCost, ...int32 }),
        unhealthyNodeCost: envInt(env, 'UNHEALTHY_NODE_DELETION_COST', { default: SEED_DELETION_COST_POLICY.unhealthyNodeCost, ...int32 }),
      },
      health: {
        enabled: envBoolean(env, 'GPU_HEALTH_ENABLED', { default: true }),
        windowMs: envDuration(env, 'GPU_HEALTH_WINDOW', { default: 60 * MINUTE_MS, minMs: MINUTE_MS, maxMs: 24 * 60 * MINUTE_MS }),
        maxWritesPerRun: envInt(env, 'MAX_HEALTH_WRITES_PER_RUN', { default: 100, min: 0, max: 10_000 }),
      },
      podDiscipline: {
        bucketSize: envInt(env, 'COST_BUCKET_SIZE', { default: 50, min: 1, max: INT32_MAX }),
        hysteresis: envInt(env, 'COST_HYSTERESIS', { default: 10, min: 0, max: INT32_MAX }),
      },
      schedulerName: envString(env, 'GPU_SCHEDULER_NAME', { default: 'gpu-scheduler', ...SCHEDULER_NAME }),
      maxPodWritesPerRun: envInt(env, 'MAX_POD_WRITES_PER_RUN', { default: 50, min: 0, max: 10_000 }),
      karpenterDisruptionCost: envBoolean(env, 'KARPENTER_DISRUPTION_COST', { default: true }),
      karpenterDoNotDisrupt: envBoolean(env, 'KARPENTER_DO_NOT_DISRUPT', { default: true }),
      capacity: {
        // The schedule's interval (the stack sets it): nodes created within it count as launched by this run.
        runIntervalSeconds: envDuration(env, 'RUN_INTERVAL', { default: MINUTE_MS, minMs: MINUTE_MS, maxMs: 24 * 60 * MINUTE_MS }) / 1000,
        pricesUsd: gpuPricesFromEnv(env),
        reservationPricesUsd: reservationPricesFromEnv(env),
        // Each named namespace is two CloudWatch metrics (docs/capacity.md, what the metrics cost).
        costTopNamespaces: envInt(env, 'COST_TOP_NAMESPACES', { default: DEFAULT_COST_TOP_NAMESPACES, min: 0, max: 500 }),
      },
      podMetrics: {
        ...metricStat,
        namespace: envString(env, 'POD_METRICS_NAMESPACE', { default: 'GpuWorkloads', ...CLOUDWATCH_NAME }),
        activeRequestsMetric: envString(env, 'ACTIVE_REQUESTS_METRIC', { default: 'active_requests', ...CLOUDWATCH_NAME }),
        cacheHitRateMetric: envString(env, 'CACHE_HIT_RATE_METRIC', { default: 'cache_hit_rate', ...CLOUDWATCH_NAME }),
        avgResponseTimeMetric: envString(env, 'RESPONSE_TIME_METRIC', { default: 'avg_response_time_ms', ...CLOUDWATCH_NAME }),
        namespaceDimension: envString(env, 'NAMESPACE_DIMENSION', { default: 'Namespace', ...CLOUDWATCH_NAME }),
        podNameDimension: envString(env, 'POD_NAME_DIMENSION', { default: 'PodName', ...CLOUDWATCH_NAME }),
      },
      nodes: {
        enabled: nodesEnabled,
        annotation: NODE_ANNOTATION.gpuUtilization,
        discipline: {
          bucketSize: envInt(env, 'UTILIZATION_BUCKET_SIZE', { default: 10, min: 1, max: 100 }),
          hysteresis: envInt(env, 'UTILIZATION_HYSTERESIS', { default: 3, min: 0, max: 100 }),
        },
        maxWritesPerRun: envInt(env, 'MAX_NODE_WRITES_PER_RUN', { default: 50, min: 0, max: 10_000 }),
        metrics: {
          ...metricStat,
          namespace: envString(env, 'GPU_UTILIZATION_NAMESPACE', { default: 'ContainerInsights', ...CLOUDWATCH_NAME }),
          metricName: envString(env, 'GPU_UTILIZATION_METRIC', { default: 'node_gpu_utilization', ...CLOUDWATCH_NAME }),
          clusterName,
        },
      },
    },
  };
}
