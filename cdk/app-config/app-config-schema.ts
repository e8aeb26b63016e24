import { z } from 'zod';
import { clusterSchema } from './cluster-schema';
import { STACK_SET_VARIABLES } from './stack-set-variables';
import { extenderFunctionSchema, labelerFunctionSchema, reconcilerFunctionSchema } from './functions-schema';
import { KUBERNETES_RELEASES, KUBERNETES_VERSIONS } from './kubernetes-releases';
import { monitoringSchema } from './monitoring-schema';
import { GPU_TAINT, taintList, type taintSchema } from './node-group-schema';
import { imageRelease, schedulerSchema } from './scheduler-schema';
import { crossField, describeValue, flag, integer, oneOf, report, reported, settings, text, type CheckContext } from './schema-rules';

// The CDK app's configuration, stated once: each setting's type, default,
// bounds and meaning. The types (app-config.ts), parseAppConfig and the tables
// of docs/configuration.md (config-docs.ts) all come from this schema.

/** CloudWatch Logs retention periods (days) that the Logs API accepts. */
export const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

/** `dashboardName` is `clusterName` followed by this, so two clusters' dashboards do not collide. */
const DASHBOARD_NAME_SUFFIX = '-gpu-scheduling';

const retentionError = (issue: { input?: unknown }) => `must be one of ${LOG_RETENTION_DAYS.join(', ')}, got ${describeValue(issue.input)}`;

export const addonsSchema = settings({
  nvidiaDevicePlugin: settings({
    enabled: flag()
      .default(true)
      .meta({ description: 'Install the NVIDIA device plugin (advertises `nvidia.com/gpu`). Switch off if the cluster already runs it (or the GPU Operator).' }),
    chartVersion: text({ pattern: /^\d+\.\d+\.\d+$/, allowed: 'a chart version such as 0.17.1' })
      .default('0.17.1')
      .meta({
        description:
          'Chart version. It runs only on nodes labelled as NVIDIA GPU nodes by our node groups (`gpu-scheduling/accelerator=nvidia`), by our labeler (`gpu.nvidia.com/model`), by GPU Feature Discovery (`nvidia.com/gpu.present=true`) or by Karpenter (`karpenter.k8s.aws/instance-gpu-manufacturer=nvidia`), and tolerates every taint.',
      }),
  }).prefault({}),
  kueue: settings({
    enabled: flag()
      .default(false)
      .meta({
        description:
          'Install Kueue (chart 0.17.0, namespace `kueue-system`) for Jobs that name a queue, with a Topology of EKS\'s network layers and one ResourceFlavor per GPU instance type of the stack\'s node groups and NodePools. ClusterQueues and LocalQueues are yours: [kueue.md](kueue.md).',
      }),
    podsReadyTimeout: text({ pattern: /^\d+(?:s|m|h)$/, allowed: 'a duration such as 90s, 10m or 1h' })
      .default('10m')
      .meta({
        description: 'Kueue\'s `waitForPodsReady` timeout: an admitted job whose pods are not all Ready by then is evicted (its GPUs freed) and requeued.',
      }),
  }).prefault({}),
  cloudWatchObservability: settings({
    enabled: flag()
      .default(true)
      .meta({
        description:
          'Install `amazon-cloudwatch-observability` (Container Insights with GPU metrics). Switch off on an existing cluster that already has the add-on (CloudFormation cannot adopt it); the dashboard and the reconciler then read the metrics your installation publishes. Its agent gets `CloudWatchAgentServerPolicy` through EKS Pod Identity (service account `amazon-cloudwatch/cloudwatch-agent`), not through the node role.',
      }),
    addonVersion: text({ pattern: /^v\d+\.\d+\.\d+-eksbuild\.\d+$/, allowed: 'an add-on version such as v4.1.0-eksbuild.1 (from `aws eks describe-addon-versions`)' })
      .optional()
      .meta({ defaultText: 'unset: EKS picks the latest', description: 'Pin the add-on version.' }),
  }).prefault({}),
});

export const alarmsSchema = settings({
  createSnsTopic: flag()
    .default(false)
    .meta({ description: 'Create an SNS topic (KMS-encrypted with a rotating customer-managed key, TLS-only) and send alarm and OK notifications to it.' }),
  email: text({ pattern: /^[^@\s]+@[^@\s]+\.[^@\s]+$/, allowed: 'an email address' })
    .optional()
    .meta({ allowed: 'e-mail address; needs `createSnsTopic: true`', description: 'Subscribe this address (confirm the e-mail AWS sends).' }),
  topicArn: text({ pattern: /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, allowed: 'an SNS topic ARN' })
    .optional()
    .meta({
      allowed: 'SNS topic ARN; not with `createSnsTopic`',
      description: 'Send notifications to your existing topic instead (its policy must allow `cloudwatch.amazonaws.com`).',
    }),
  extender5xxThreshold: integer(1, 1_000_000).default(1).meta({ description: 'ALB + target 5xx responses in 5 minutes.' }),
  extenderErrorsThreshold: integer(1, 1_000_000).default(1).meta({ description: 'Extender handler errors (`ExtenderErrors`, all verbs) in 5 minutes.' }),
  extenderP99LatencyMs: integer(10, 30_000)
    .default(1000)
    .meta({ allowed: '10–30000, below `scheduler.extender.httpTimeoutSeconds`', description: 'ALB target response time p99, 2 of 3 five-minute periods.' }),
  lambdaErrorsThreshold: integer(1, 1_000_000).default(1).meta({ description: 'Errors per Lambda in 5 minutes.' }),
  gpuPodPendingMinutes: integer(1, 1440)
    .default(15)
    .meta({
      description:
        'The oldest GPU pod pending for the GPU scheduler (`OldestPendingGpuPodAge`; pods held by scheduling gates, e.g. Kueue\'s, not counted) has waited longer than this, 2 of 3 one-minute runs.',
    }),
  gpuSchedulerErrorsThreshold: integer(1, 1_000_000)
    .default(3)
    .meta({
      description:
        'Scheduling attempts of the GPU scheduler that ended in an error (`GpuSchedulerAttempts{Result=error}`: an extender call that failed its TLS handshake, timed out or answered 5xx) in 5 minutes.',
    }),
  certificateDaysToExpiry: integer(1, 29)
    .default(25)
    .meta({
      allowed: '1–29 (the rotation renews at 30)',
      description:
        'With mutual TLS: the extender ALB\'s imported certificate (ACM `DaysToExpiry`, which ACM never renews) has fewer days left than this. The rotation replaces it at 30 days, so this fires after that many days of failed rotations.',
    }),
  strandedGpuPercent: integer(1, 100)
    .default(25)
    .meta({ description: 'Stranded GPUs (`GpusStranded`) above this share of the allocatable GPUs, averaged over 15 minutes.' }),
  reservedGpusIdleMinutes: integer(1, 1440)
    .default(10)
    .meta({
      description:
        'Reserved GPUs idle while GPU pods wait for new capacity (`ReservedGpusIdleWhilePodsWaitForCapacity`) in every one-minute run for this long ([capacity.md](capacity.md#idle-reserved-gpus)).',
      }),
  gpusUnhealthyThreshold: integer(1, 100_000)
    .default(8)
    .meta({ description: 'Unhealthy GPUs (`GpusUnhealthy`: of failing nodes, or withheld by the device plugin or the DRA driver) at or above this, 2 of 3 one-minute runs ([health.md](health.md)).' }),
  gpuNodeFailingMinutes: integer(5, 1440)
    .default(45)
    .meta({
      description:
        'A GPU node has had `AcceleratedHardwareReady=False` longer than this (`OldestFailingGpuNodeAge`): node repair should have replaced it by then. Karpenter 1.15 waits up to 30 minutes for a fault reason it does not know and then drains for up to 10, hence 45 ([health.md](health.md#how-this-composes-with-repair-and-cordoning)).',
    }),
}).check(crossField((ctx) => {
  const { createSnsTopic, email, topicArn } = ctx.value;
  if (email !== undefined && createSnsTopic !== true && !reported(ctx, 'email')) {
    report(ctx, ['email'], 'needs alarms.createSnsTopic: true (the subscription goes on the topic the stack creates)', email);
  }
  if (topicArn !== undefined && createSnsTopic === true && !reported(ctx, 'topicArn')) {
    report(ctx, ['topicArn'], 'cannot be combined with alarms.createSnsTopic: true; choose one topic', topicArn);
  }
}));

export const admissionSchema = settings({
  gpuAnnotations: oneOf(['warn', 'deny'])
    .default('warn')
    .meta({
      description:
        'What the API server does with a new pod whose `gpu.nvidia.com/*` annotation keys are unknown or whose values are malformed: `warn` admits it with a warning kubectl prints; `deny` refuses it. See [deploy.md](deploy.md#opting-a-namespace-in).',
    }),
  gpuTaints: taintList()
    .optional()
    .meta({
      defaultText: 'new cluster: the taints of the stack\'s GPU NodePools and node groups; existing cluster: `[{key: nvidia.com/gpu, effect: NO_SCHEDULE}]`',
      description:
        'The GPU nodes\' taints: the namespace opt-in gives a GPU pod a toleration of each (`operator: Exists`, same key and effect). On an existing cluster, list the taints of your GPU NodePools or node groups (`npm run preflight` compares them).',
    }),
});

/** The GPU taints the opt-in tolerates when `admission.gpuTaints` is not set: what the stack's own GPU capacity carries, else the EKS convention. */
function defaultGpuTaints(cluster: { mode: string; gpuCapacity?: string; karpenter?: { nodePools: readonly { taints: readonly NodeTaintValue[] }[] }; gpuNodeGroups?: readonly { taints: readonly NodeTaintValue[] }[] }): NodeTaintValue[] {
  if (cluster.mode !== 'new') return [{ ...GPU_TAINT }];
  const pools = cluster.gpuCapacity === 'karpenter' ? (cluster.karpenter?.nodePools ?? []) : [];
  const taints = [...pools, ...(cluster.gpuNodeGroups ?? [])].flatMap((capacity) => capacity.taints);
  const seen = new Set<string>();
  return taints.filter((taint) => {
    const id = `${taint.key}:${taint.effect}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

type NodeTaintValue = z.output<typeof taintSchema>;

const FUNCTION_NAMES = ['extender', 'labeler', 'reconciler'] as const;

type RootValue = Record<string, unknown> & { cluster?: unknown; kubernetesVersion?: unknown; scheduler?: unknown; alarms?: unknown; addons?: unknown };

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** The rules between sections: each runs on the values that were valid, so one bad key is reported once. */
function checkAcrossSections(ctx: CheckContext<RootValue>): void {
  const root = ctx.value;
  const version = root.kubernetesVersion;
  const schedulerVersion = field(root.scheduler, 'kubeSchedulerVersion');
  if (typeof version === 'string' && typeof schedulerVersion === 'string' && !reported(ctx, 'kubernetesVersion', ['scheduler', 'kubeSchedulerVersion'])) {
    if (!schedulerVersion.startsWith(`${version}.`)) {
      report(
        ctx,
        ['scheduler', 'kubeSchedulerVersion'],
        `must be a ${version}.x patch release (the scheduler must match kubernetesVersion ${version}), got ${describeValue(schedulerVersion)}`,
        schedulerVersion,
      );
    }
  }
  const image = field(root.scheduler, 'image');
  const imageVersion = typeof image === 'string' ? imageRelease(image) : undefined;
  if (typeof version === 'string' && imageVersion !== undefined && !imageVersion.startsWith(`${version}.`) && !reported(ctx, 'kubernetesVersion', ['scheduler', 'image'])) {
    report(ctx, ['scheduler', 'image'], `must name a ${version}.x kube-scheduler (the scheduler must match kubernetesVersion ${version}), got ${describeValue(image)}`, image);
  }
  const latency = field(root.alarms, 'extenderP99LatencyMs');
  const timeout = field(root.scheduler, 'extender', 'httpTimeoutSeconds');
  if (typeof latency === 'number' && typeof timeout === 'number' && latency >= timeout * 1000) {
    if (!reported(ctx, ['alarms', 'extenderP99LatencyMs'], ['scheduler', 'extender', 'httpTimeoutSeconds'])) {
      report(
        ctx,
        ['alarms', 'extenderP99LatencyMs'],
        `must be below scheduler.extender.httpTimeoutSeconds (${timeout} s), or the alarm fires only after the scheduler has already timed out`,
        latency,
      );
    }
  }
  const mode = field(root.cluster, 'mode');
  if (mode === 'existing' && field(root.cluster, 'existing', 'gpuCapacity') === 'auto-mode' && field(root.addons, 'nvidiaDevicePlugin', 'enabled') === true) {
    if (!reported(ctx, ['addons', 'nvidiaDevicePlugin', 'enabled'])) {
      report(
        ctx,
        ['addons', 'nvidiaDevicePlugin', 'enabled'],
        'must be false when cluster.existing.gpuCapacity is "auto-mode": Auto Mode GPU nodes run NVIDIA\'s device plugin themselves, and a second one would advertise the same GPUs',
        true,
      );
    }
  }
  for (const name of FUNCTION_NAMES) {
    const environment = field(root[name], 'environment');
    if (typeof environment !== 'object' || environment === null) continue;
    for (const variable of STACK_SET_VARIABLES) {
      if (!variable.functions.includes(name) || !(variable.name in environment) || (variable.newClusterOnly === true && mode !== 'new')) continue;
      report(ctx, [name, 'environment', variable.name], `is set by the stack (from ${variable.from}) and cannot be overridden`, (environment as Record<string, unknown>)[variable.name]);
    }
  }
}

export const appConfigSchema = settings({
  stackName: text({ pattern: /^[A-Za-z][A-Za-z0-9-]{0,127}$/, allowed: 'a CloudFormation stack name (letters, digits, "-", starting with a letter)' })
    .default('GpuScheduling')
    .meta({ allowed: 'letters, digits, `-`; starts with a letter', description: 'CloudFormation stack name.' }),
  clusterName: text({
    pattern: /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/,
    allowed: 'an EKS cluster name (letters, digits, "-", "_", at most 100, starting with a letter or digit)',
  })
    .default('gpu-scheduling')
    .meta({
      allowed: 'EKS cluster name (letters, digits, `-`, `_`, ≤ 100)',
      description: 'Name of the new cluster, or of the existing one to attach. Also the Container Insights `ClusterName`.',
    }),
  kubernetesVersion: oneOf(KUBERNETES_VERSIONS)
    .default('1.36')
    .meta({
      description:
        'Cluster version (new cluster) or the existing cluster\'s version. Picks the kube-scheduler image and whether the namespace opt-in is deployed (1.36: MutatingAdmissionPolicy is GA; 1.35 has none). The deploy-time kubectl is 1.36.3 (`@aws-cdk/lambda-layer-kubectl-v36`), within one minor version of both. 1.34 (EKS standard support ended 2026-12-02) is rejected with an error naming these two.',
    }),
  logRetentionDays: z
    .int({ error: retentionError })
    .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), { error: retentionError })
    .default(30)
    .meta({
      allowed: `a CloudWatch Logs retention: ${LOG_RETENTION_DAYS.join(', ')}`,
      description: 'Retention of every log group the stack creates (Lambdas, EKS control plane, VPC flow logs).',
    }),
  cluster: clusterSchema,
  addons: addonsSchema.prefault({}),
  scheduler: schedulerSchema.prefault({}),
  extender: extenderFunctionSchema.prefault({}),
  labeler: labelerFunctionSchema.prefault({}),
  reconciler: reconcilerFunctionSchema.prefault({}),
  alarms: alarmsSchema.prefault({}),
  admission: admissionSchema.prefault({}),
  monitoring: monitoringSchema.prefault({}),
  dashboardName: text({ pattern: /^[A-Za-z0-9_-]{1,255}$/, allowed: 'a dashboard name (letters, digits, "-", "_")' })
    .optional()
    .meta({ defaultText: `\`<clusterName>${DASHBOARD_NAME_SUFFIX}\``, allowed: 'letters, digits, `-`, `_`', description: 'CloudWatch dashboard name.' }),
})
  .check(crossField(checkAcrossSections))
  .transform(({ cluster, scheduler, dashboardName, admission, ...config }) => ({
    ...config,
    admission: { ...admission, gpuTaints: admission.gpuTaints ?? defaultGpuTaints(cluster) },
    // The existing cluster's keys sit under `existing` in the file (its own
    // object, required as a whole); the stack reads them beside `mode`.
    cluster: cluster.mode === 'new' ? cluster : { mode: cluster.mode, ...existingDetails(cluster.existing) },
    scheduler: withImage({
      ...scheduler,
      // The table local/builds/kube-binaries.ts builds from too: the deployed scheduler is the tested one.
      kubeSchedulerVersion: scheduler.kubeSchedulerVersion ?? KUBERNETES_RELEASES[config.kubernetesVersion],
    }),
    dashboardName: dashboardName ?? `${config.clusterName}${DASHBOARD_NAME_SUFFIX}`,
  }));

/** The scheduler's image: as configured, else the upstream image of its release. */
function withImage<T extends { image?: string; kubeSchedulerVersion: string }>(scheduler: T): T & { image: string } {
  return { ...scheduler, image: scheduler.image ?? `registry.k8s.io/kube-scheduler:v${scheduler.kubeSchedulerVersion}` };
}

/** Present whenever the transform runs: its absence is a reported problem (cluster-schema.ts). */
function existingDetails<T>(existing: T | undefined): T {
  if (existing === undefined) throw new Error('cluster.existing is checked before the configuration is built');
  return existing;
}
