import type { AppConfig } from '../app-config/app-config';
import { AWS_PRICES, SYSTEM_INSTANCE_HOURLY_USD, type Price } from './aws-prices';

// What the stack adds to an AWS bill in a month, at a cluster's size: each
// line is a quantity (from the configuration, the size and the assumptions
// below) times a list price (aws-prices.ts). `npm run cost` prints it, the
// preflight uses it at the measured size, and docs/deploy.md's tables are its
// output (a unit test fails when they differ).

/** Hours in the month every monthly figure is of. */
export const HOURS_PER_MONTH = 730;
const MINUTES_PER_MONTH = HOURS_PER_MONTH * 60;
const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
const GB = 1e9;

/** What the bill scales with. */
export interface ClusterSize {
  /** GPU nodes running, on average over the month. */
  readonly gpuNodes: number;
  /** Pods opted in to deletion costs (`gpu.nvidia.com/deletion-cost: enabled`): the reconciler reads 3 metrics each per run. */
  readonly optedInPods: number;
  /** GPU pods the gpu-scheduler places a day: each costs extender calls. */
  readonly gpuPodsScheduledPerDay: number;
}

export const DEFAULT_GPU_PODS_SCHEDULED_PER_DAY = 10_000;

/**
 * The figures no configuration states, each with where it comes from. Change
 * one here and the docs' tables follow (`npm run cost -- --markdown …`).
 */
export const COST_ASSUMPTIONS = {
  /** kube-scheduler retries a pod that did not fit; most fit the first time. */
  attemptsPerScheduledPod: 1.5,
  /** filter and prioritize per attempt (preempt is rare). */
  extenderCallsPerAttempt: 2,
  /** The pod's JSON, the node names and the reply through the ALB. */
  kbThroughAlbPerExtenderCall: 15,
  /** Warm calls take milliseconds at 1 vCPU (docs/benchmarks.md); cold starts are rare at a steady load. */
  billedMsPerExtenderCall: 25,
  /** Lambda targets: one LCU is 0.4 GB processed an hour (the other LCU dimensions stay far lower at these rates). */
  gbPerLcuHour: 0.4,
  labelerSecondsPerScheduledRun: 2,
  /** Karpenter replaces GPU nodes as pods come and go: one launch per GPU node a day. */
  launchesPerGpuNodePerDay: 1,
  /** The labeler waits for a launched instance's node to register. */
  labelerSecondsPerLaunch: 90,
  reconcilerSecondsPerRun: 3,
  /** Pod signals the reconciler reads per opted-in pod, and Container Insights' GPU utilization per GPU node. */
  metricsPerOptedInPod: 3,
  metricsPerGpuNode: 1,
  /** Name × dimension combinations emitted on a cluster with one GPU model (the catalog allows 144). */
  customMetrics: 50,
  /** Metrics the alarms read (19 alarms with mutual TLS; test/unit/cdk/lib/gpu-scheduling-stack.new-cluster.test.ts counts them in the template). */
  alarmMetrics: 26,
  logKbPerExtenderCall: 1.5,
  logKbPerLabelerInvocation: 1.6,
  logKbPerReconcilerRun: 12,
  /** The mutual-TLS rotation Lambda's daily check. */
  rotationRunsPerMonth: 30,
  rotationSecondsPerRun: 1,
  rotationMemoryMiB: 256,
  /** Enhanced observability: node, pod, container and GPU metrics of a GPU node with a few pods, each minute. */
  containerInsightsObservationsPerNodeMinute: 600,
  /** One gpu-scheduler replica's series scraped every 30 s (docs/monitoring.md). */
  prometheusSamplesPerSchedulerReplica: 106e6,
  // A new cluster's own.
  controlPlaneLogGbPerMonth: 24,
  natGatewayGbPerMonth: 20,
  flowLogGbPerMonth: 1,
  /** Karpenter's leader long-polls its interruption queue (20 s), plus one message per EC2 event. */
  interruptionQueueRequestsPerMonth: 131_000,
} as const;

export interface CostLine {
  readonly item: string;
  /** What is billed: the quantities and the prices they are multiplied by. */
  readonly basis: string;
  readonly usd: number;
}

export interface StackCost {
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
  /** What a reader might expect on the bill but the stack does not add. */
  readonly notIncluded: readonly string[];
}

const number = (value: number, digits = 0): string => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
const money = (value: number): string => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const at = (p: Price): string => `$${p.usd.toString()} per ${p.per}`;

function lambdaCost(requests: number, gbSeconds: number): number {
  return (requests / 1e6) * AWS_PRICES.lambdaRequests.usd + gbSeconds * AWS_PRICES.lambdaArmDuration.usd;
}

function lambdaLine(item: string, requests: number, gbSeconds: number, how: string): CostLine {
  return { item, basis: `${number(requests)} invocations, ${number(gbSeconds)} GB-s (${how}) at ${at(AWS_PRICES.lambdaRequests)} and ${at(AWS_PRICES.lambdaArmDuration)}`, usd: lambdaCost(requests, gbSeconds) };
}

const gbOf = (mib: number): number => mib / 1024;

/** The monthly cost of what `config` deploys, at `size`. */
export function stackCost(config: AppConfig, size: ClusterSize): StackCost {
  const a = COST_ASSUMPTIONS;
  const p = AWS_PRICES;
  const lines: CostLine[] = [];
  const cluster = config.cluster;
  const newCluster = cluster.mode === 'new' ? cluster : undefined;

  if (newCluster !== undefined) {
    lines.push({ item: 'EKS control plane', basis: `${HOURS_PER_MONTH} h at ${at(p.eksClusterHour)}`, usd: HOURS_PER_MONTH * p.eksClusterHour.usd });
    lines.push({
      item: 'EKS control-plane logs',
      basis: `${a.controlPlaneLogGbPerMonth} GB (all five log types; the audit log dominates) at ${at(p.logsIngestion)}, kept ${config.logRetentionDays} days at ${at(p.logsStorage)}`,
      usd: a.controlPlaneLogGbPerMonth * (p.logsIngestion.usd + p.logsStorage.usd * retentionMonths(config)),
    });
    const nat = newCluster.natGateways;
    lines.push({
      item: 'NAT gateways',
      basis: `${nat} (\`natGateways\`) × ${HOURS_PER_MONTH} h at ${at(p.natGatewayHour)}, ${a.natGatewayGbPerMonth} GB at ${at(p.natGatewayData)}, a public IPv4 address each at ${at(p.publicIpv4Hour)}`,
      usd: nat * HOURS_PER_MONTH * (p.natGatewayHour.usd + p.publicIpv4Hour.usd) + a.natGatewayGbPerMonth * p.natGatewayData.usd,
    });
    const zones = Math.max(newCluster.availabilityZones.length, 2);
    const endpoints = newCluster.awsApiAccess === 'vpc-endpoints' ? 3 * zones : 0;
    lines.push({
      item: 'VPC interface endpoints',
      basis: endpoints === 0 ? 'none (`awsApiAccess: nat`)' : `3 (EKS, EC2, CloudWatch) × ${zones} zones × ${HOURS_PER_MONTH} h at ${at(p.interfaceEndpointHour)}`,
      usd: endpoints * HOURS_PER_MONTH * p.interfaceEndpointHour.usd,
    });
    lines.push({
      item: 'VPC flow logs',
      basis: `${a.flowLogGbPerMonth} GB of rejected traffic at ${at(p.logsIngestion)} and storage`,
      usd: a.flowLogGbPerMonth * (p.logsIngestion.usd + p.logsStorage.usd * retentionMonths(config)),
    });
    const group = newCluster.systemNodeGroup;
    const [type] = group.instanceTypes;
    const hourly = type === undefined ? undefined : SYSTEM_INSTANCE_HOURLY_USD[type];
    lines.push({
      item: 'System node group',
      basis:
        hourly === undefined
          ? `${group.desiredSize} × ${type ?? '?'} (no price in cdk/cost/aws-prices.ts: not counted), ${group.desiredSize} × ${group.diskSizeGiB} GiB gp3 at ${at(p.ebsGp3)}`
          : `${group.desiredSize} × ${type} × ${HOURS_PER_MONTH} h at $${hourly} an hour, ${group.desiredSize} × ${group.diskSizeGiB} GiB gp3 at ${at(p.ebsGp3)}`,
      usd: group.desiredSize * ((hourly ?? 0) * HOURS_PER_MONTH + group.diskSizeGiB * p.ebsGp3.usd),
    });
  }

  const extenderCalls = size.gpuPodsScheduledPerDay * a.attemptsPerScheduledPod * a.extenderCallsPerAttempt * DAYS_PER_MONTH;
  const albGbPerHour = (extenderCalls * a.kbThroughAlbPerExtenderCall * 1000) / GB / HOURS_PER_MONTH;
  const lcus = albGbPerHour / a.gbPerLcuHour;
  lines.push({
    item: 'ALB (internal)',
    basis: `${HOURS_PER_MONTH} h at ${at(p.albHour)}, ${number(lcus, 3)} LCU (${number(albGbPerHour, 3)} GB processed an hour) × ${HOURS_PER_MONTH} h at ${at(p.lcuHour)}`,
    usd: HOURS_PER_MONTH * (p.albHour.usd + lcus * p.lcuHour.usd),
  });

  const extenderGbs = (extenderCalls * a.billedMsPerExtenderCall) / 1000 * gbOf(config.extender.memorySizeMiB);
  lines.push(lambdaLine('Extender Lambda', extenderCalls, extenderGbs, `${number(size.gpuPodsScheduledPerDay)} GPU pods a day × ${a.attemptsPerScheduledPod} attempts × ${a.extenderCallsPerAttempt} calls, ${a.billedMsPerExtenderCall} ms at ${config.extender.memorySizeMiB} MB`));
  const provisioned = config.extender.provisionedConcurrency;
  if (provisioned > 0) {
    const gbs = provisioned * gbOf(config.extender.memorySizeMiB) * HOURS_PER_MONTH * 3600;
    lines.push({ item: 'Extender provisioned concurrency', basis: `${provisioned} × ${config.extender.memorySizeMiB} MB all month: ${number(gbs)} GB-s at ${at(p.lambdaArmProvisioned)}`, usd: gbs * p.lambdaArmProvisioned.usd });
  }

  const labelerRuns = MINUTES_PER_MONTH / config.labeler.scheduleMinutes;
  const launches = size.gpuNodes * a.launchesPerGpuNodePerDay * DAYS_PER_MONTH;
  const labelerGbs = (labelerRuns * a.labelerSecondsPerScheduledRun + launches * a.labelerSecondsPerLaunch) * gbOf(config.labeler.memorySizeMiB);
  lines.push(lambdaLine('Labeler Lambda', labelerRuns + launches, labelerGbs, `a run every ${config.labeler.scheduleMinutes} min of ${a.labelerSecondsPerScheduledRun} s, ${number(launches)} node launches of ${a.labelerSecondsPerLaunch} s, at ${config.labeler.memorySizeMiB} MB`));

  const reconcilerRuns = MINUTES_PER_MONTH / config.reconciler.scheduleMinutes;
  const reconcilerGbs = reconcilerRuns * a.reconcilerSecondsPerRun * gbOf(config.reconciler.memorySizeMiB);
  lines.push(lambdaLine('Reconciler Lambda', reconcilerRuns, reconcilerGbs, `a run every ${config.reconciler.scheduleMinutes} min of ${a.reconcilerSecondsPerRun} s at ${config.reconciler.memorySizeMiB} MB`));

  if (config.extender.mutualTls) {
    const gbs = a.rotationRunsPerMonth * a.rotationSecondsPerRun * gbOf(a.rotationMemoryMiB);
    lines.push({ item: 'Extender mutual TLS', basis: `the rotation Lambda's daily check (${a.rotationRunsPerMonth} runs of ${a.rotationSecondsPerRun} s at ${a.rotationMemoryMiB} MB); its S3 bucket holds a few KB; ACM bills no imported certificate`, usd: lambdaCost(a.rotationRunsPerMonth, gbs) });
  }

  const metricsPerRun = a.metricsPerOptedInPod * size.optedInPods + a.metricsPerGpuNode * size.gpuNodes;
  const metricsRead = reconcilerRuns * metricsPerRun;
  lines.push({
    item: 'Reconciler GetMetricData',
    basis: `${number(reconcilerRuns)} runs × ${number(metricsPerRun)} metrics (${a.metricsPerOptedInPod} per opted-in pod, ${a.metricsPerGpuNode} per GPU node) = ${number(metricsRead / 1e6, 2)} M at ${at(p.getMetricData)}`,
    usd: (metricsRead / 1000) * p.getMetricData.usd,
  });
  lines.push({ item: 'CloudWatch custom metrics', basis: `${a.customMetrics} at ${at(p.customMetric)}`, usd: a.customMetrics * p.customMetric.usd });
  lines.push({ item: 'CloudWatch alarms', basis: `${a.alarmMetrics} alarm metrics at ${at(p.alarmMetric)}`, usd: a.alarmMetrics * p.alarmMetric.usd });
  lines.push({ item: 'CloudWatch dashboard', basis: `1 at ${at(p.dashboard)}`, usd: p.dashboard.usd });

  const logGb = (extenderCalls * a.logKbPerExtenderCall + (labelerRuns + launches) * a.logKbPerLabelerInvocation + reconcilerRuns * a.logKbPerReconcilerRun) * 1000 / GB;
  lines.push({
    item: 'Lambda logs',
    basis: `${number(logGb, 2)} GB at ${at(p.logsIngestion)}, kept ${config.logRetentionDays} days at ${at(p.logsStorage)} (an upper bound: storage is billed compressed)`,
    usd: logGb * (p.logsIngestion.usd + p.logsStorage.usd * retentionMonths(config)),
  });
  // Lambda samples the first request each second and 5 % beyond: at these rates nearly every invocation is a trace.
  const traces = extenderCalls + labelerRuns + launches + reconcilerRuns;
  lines.push({ item: 'X-Ray', basis: `${number(traces)} traces (nearly every invocation) at ${at(p.xrayTraces)}`, usd: (traces / 1e6) * p.xrayTraces.usd });

  if (newCluster?.gpuCapacity === 'karpenter') {
    lines.push({
      item: 'Karpenter interruption queue',
      basis: `${number(a.interruptionQueueRequestsPerMonth)} SQS requests at ${at(p.sqsRequests)}; its EventBridge rules carry AWS events, which are free`,
      usd: (a.interruptionQueueRequestsPerMonth / 1e6) * p.sqsRequests.usd,
    });
  }

  if (config.addons.cloudWatchObservability.enabled) {
    const systemNodes = newCluster?.systemNodeGroup.desiredSize ?? 0;
    const nodes = size.gpuNodes + systemNodes;
    const observations = nodes * a.containerInsightsObservationsPerNodeMinute * MINUTES_PER_MONTH;
    lines.push({
      item: 'Container Insights (the add-on)',
      basis: `${number(nodes)} nodes (${number(size.gpuNodes)} GPU${systemNodes > 0 ? `, ${systemNodes} system` : ''}) × ${a.containerInsightsObservationsPerNodeMinute} observations a minute = ${number(observations / 1e6)} M at ${at(p.containerInsightsObservations)}; container logs not counted`,
      usd: (observations / 1e6) * p.containerInsightsObservations.usd,
    });
  }

  if (config.monitoring.podMonitor.enabled) {
    const samples = config.scheduler.replicas * a.prometheusSamplesPerSchedulerReplica;
    lines.push({
      item: 'Managed Prometheus, if the PodMonitor\'s Prometheus writes to it',
      basis: `${config.scheduler.replicas} scheduler replicas × ${number(a.prometheusSamplesPerSchedulerReplica / 1e6)} M samples at ${at(p.ampIngestion)} (a keep rule cuts it to cents: monitoring.md)`,
      usd: (samples / 1e7) * p.ampIngestion.usd,
    });
  }

  const notIncluded = [
    'GPU nodes: what the workload runs, not what the stack adds (their hourly cost is on the dashboard)',
    ...(newCluster === undefined ? ['the existing cluster\'s control plane, nodes, NAT and endpoints: the Lambdas use its subnets\' routes (a few GB a month)'] : []),
    ...(config.addons.cloudWatchObservability.enabled ? [] : ['Container Insights: `addons.cloudWatchObservability.enabled: false` (your own installation bills it)']),
    'custom-resource Lambdas: they run only while deploying',
  ];
  return { lines, totalUsd: lines.reduce((sum, line) => sum + line.usd, 0), notIncluded };
}

function retentionMonths(config: AppConfig): number {
  return config.logRetentionDays / DAYS_PER_MONTH;
}

/** What a table says of the size it was computed at. */
export function describeSize(size: ClusterSize): string {
  return `${number(size.gpuNodes)} GPU nodes, ${number(size.optedInPods)} pods opted in to deletion costs, ${number(size.gpuPodsScheduledPerDay)} GPU pods scheduled a day`;
}

/** The cost as a Markdown table, with its total and what it leaves out. */
export function costMarkdownTable(cost: StackCost): string {
  return [
    '| Item | What is billed | $ / month |',
    '|---|---|---:|',
    ...cost.lines.map((line) => `| ${line.item} | ${line.basis.replaceAll('|', '\\|')} | ${money(line.usd)} |`),
    `| **Total** | | **${money(cost.totalUsd)}** |`,
    '',
    `Not included: ${cost.notIncluded.join('; ')}.`,
  ].join('\n');
}

/** The same for a terminal: aligned columns, then the total. */
export function costText(cost: StackCost): string {
  const width = Math.max(...cost.lines.map((line) => line.item.length), 'Total'.length);
  const amounts = cost.lines.map((line) => money(line.usd));
  const amountWidth = Math.max(...amounts.map((a) => a.length), money(cost.totalUsd).length);
  return [
    ...cost.lines.map((line, i) => `${line.item.padEnd(width)}  ${(amounts[i] ?? '').padStart(amountWidth)}  ${line.basis}`),
    `${'Total'.padEnd(width)}  ${money(cost.totalUsd).padStart(amountWidth)}`,
    '',
    ...cost.notIncluded.map((text) => `not included: ${text}`),
  ].join('\n');
}

export { money as formatUsd };
