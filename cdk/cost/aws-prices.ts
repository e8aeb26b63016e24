/**
 * The AWS list prices the cost model (stack-cost.ts) multiplies: us-east-1,
 * on demand, no free tier beyond the ones named, no savings plans. One table
 * with the day it was written down, so every figure that uses a price says
 * how old it is. GPU instance prices are not here: they belong to the
 * reconciler's cost metrics (lambdas/reconciler/gpu-prices.ts), and the
 * stack adds no GPU node.
 */
export const PRICES_RECORDED_ON = '2026-12-04';
export const PRICES_REGION = 'us-east-1';

/**
 * A price and what it is per. The tiers these rates open (the first 10,000
 * custom metrics, the first 2 billion Prometheus samples) cover a stack of
 * this size; the free tiers (an account's first 3 dashboards, 1 million SQS
 * requests, 100,000 X-Ray traces) are not subtracted, so totals are upper bounds.
 */
export interface Price {
  readonly usd: number;
  readonly per: string;
}

const price = (usd: number, per: string): Price => ({ usd, per });

export const AWS_PRICES = {
  // AWS Lambda (arm64, as the functions run).
  lambdaRequests: price(0.2, 'million requests'),
  lambdaArmDuration: price(0.0000133334, 'GB-second (arm64)'),
  lambdaArmProvisioned: price(0.0000033334, 'GB-second provisioned (arm64)'),
  // Elastic Load Balancing: an Application Load Balancer.
  albHour: price(0.0225, 'ALB-hour'),
  lcuHour: price(0.008, 'LCU-hour'),
  // Amazon CloudWatch.
  customMetric: price(0.3, 'metric-month'),
  getMetricData: price(0.01, '1,000 metrics'),
  dashboard: price(3, 'dashboard-month'),
  alarmMetric: price(0.1, 'alarm metric-month'),
  logsIngestion: price(0.5, 'GB ingested'),
  logsStorage: price(0.03, 'GB-month stored'),
  /** Container Insights with enhanced observability for EKS bills observations: each metric value of each node, pod, container and GPU, each minute. */
  containerInsightsObservations: price(0.21, 'million observations'),
  // AWS X-Ray.
  xrayTraces: price(5, 'million traces recorded'),
  // Amazon SQS.
  sqsRequests: price(0.4, 'million requests'),
  // Amazon EKS, Amazon VPC, Amazon EC2 (a new cluster only).
  eksClusterHour: price(0.1, 'cluster-hour'),
  natGatewayHour: price(0.045, 'NAT gateway-hour'),
  natGatewayData: price(0.045, 'GB processed'),
  publicIpv4Hour: price(0.005, 'address-hour'),
  interfaceEndpointHour: price(0.01, 'endpoint-hour per zone'),
  ebsGp3: price(0.08, 'GB-month of gp3'),
  // Amazon Managed Service for Prometheus.
  ampIngestion: price(0.9, '10 million samples ingested'),
} as const satisfies Record<string, Price>;

/** On-demand Linux prices per hour of the system node group's usual types; another type is left unpriced (and said so). */
export const SYSTEM_INSTANCE_HOURLY_USD: Readonly<Record<string, number>> = {
  'm7i.large': 0.1008,
  'm7i.xlarge': 0.2016,
  'm7i.2xlarge': 0.4032,
  'm6i.large': 0.096,
  'm6i.xlarge': 0.192,
  'm5.large': 0.096,
  'm5.xlarge': 0.192,
  't3.large': 0.0832,
  't3.xlarge': 0.1664,
};
