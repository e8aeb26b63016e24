import { ConfigError } from '../../lambdas/env';
import { podNamespacesFromEnv } from '../../lambdas/reconciler/pod-namespaces';
import { crossField, flag, integer, report, reported, settings, stringMap, text, type CheckContext } from './schema-rules';
import { COLD_LIST_MARGIN, coldListSeconds, FULL_VCPU_MIB, memoryForColdList } from './cold-start-estimate';
import { ENVIRONMENT_VARIABLE } from './value-rules';

// The three Lambdas: size, timeout, schedule and extra environment.

function environmentSchema(description: string) {
  return stringMap({ key: ENVIRONMENT_VARIABLE, maxValueLength: 4096 })
    .default({})
    .check(crossField((ctx) => {
      for (const name of Object.keys(ctx.value)) {
        if (name.startsWith('AWS_')) report(ctx, [name], 'AWS_* variables are reserved by Lambda', ctx.value[name]);
      }
    }))
    .meta({
      allowed: 'map of variable → string; not the variables the stack sets ([below](#what-the-stack-sets)), not `AWS_*`',
      description,
    });
}

const ENVIRONMENT_PAGES = 'The variables are documented in [labeler.md](labeler.md), [reconciler.md](reconciler.md), [extender.md](extender.md) and [below](#the-lambdas-environment-variables).';

function memorySize(defaultMiB: number, description?: string) {
  return integer(128, 10240)
    .default(defaultMiB)
    .meta(description === undefined ? {} : { description });
}

export const extenderFunctionSchema = settings({
  mutualTls: flag()
    .default(true)
    .meta({
      description:
        'Only the second scheduler may call the extender: the ALB listener is HTTPS with mutual TLS in verify mode, and a caller without the scheduler\'s client certificate is refused in the TLS handshake, before any Lambda invocation. The stack issues and rotates every certificate itself ([deploy.md](deploy.md#who-can-call-the-extender)). `false` is the opt-out: plain HTTP (or HTTPS with `certificateArn`), which anything that reaches the ALB can call, up to using the extender\'s reserved concurrency so that the scheduler\'s own calls are throttled.',
    }),
  listenerPort: integer(1, 65535)
    .optional()
    .meta({ defaultText: '`443` (mutual TLS or a certificate), `80` with `mutualTls: false` and no certificate', description: 'ALB listener port.' }),
  certificateArn: text({ pattern: /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/, allowed: 'an ACM certificate ARN' })
    .optional()
    .meta({ allowed: 'ACM certificate ARN; only with `mutualTls: false`', description: 'Serve HTTPS with this certificate (TLS 1.3 policy), without client certificates.' }),
  certificateCaBundle: text({ pattern: /^\s*(-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*)+$/, allowed: 'PEM CA certificates' })
    .optional()
    .meta({
      allowed: 'PEM CA certificates; only with `certificateArn`',
      description:
        'The CAs that issued `certificateArn`\'s certificate (an ACM Private CA\'s, say), which the scheduler verifies the ALB against (its `tlsConfig.caFile`, from a ConfigMap). Unset, it verifies against the system roots of its image, which a public ACM certificate chains to.',
    }),
  hostname: text({ pattern: /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/, allowed: 'a DNS name such as gpu-extender.internal.example.com' })
    .optional()
    .meta({
      allowed: 'DNS name; required with `certificateArn`',
      description:
        'The name in the certificate. Point it at the ALB (e.g. a Route 53 private hosted zone alias); the scheduler calls `https://<hostname>:<port>` and verifies the certificate against it.',
    }),
  // One full vCPU (Lambda gives CPU in proportion to memory: 1 vCPU at
  // 1,769 MB). A cold instance lists the cluster inside its first request,
  // CPU-bound: at 5,000 nodes / 50,000 pods 2.7 s at 1 vCPU against 8.8 s at
  // 512 MB's 0.29 vCPU (docs/extender.md). Calls last milliseconds and are
  // billed per millisecond, so the price is small, and unlike provisioned
  // concurrency nothing is billed while idle.
  memorySizeMiB: memorySize(
    1769,
    'Lambda gives CPU with memory (1 vCPU at 1,769 MB), and a new instance lists the whole cluster inside its first request, bound by CPU: at 5,000 nodes / 50,000 pods that took 2.7 s at 1,769 MB and 8.8 s at 512 MB (0.29 vCPU), against kube-scheduler\'s 5 s `httpTimeout` ([The first listing of a cold instance](extender.md#the-first-listing-of-a-cold-instance)). Calls last milliseconds and are billed per millisecond, so the larger size costs little and nothing while idle. On a small cluster 512 is enough.',
  ),
  timeoutSeconds: integer(1, 60).default(10).meta({ description: 'The Lambda timeout; a call the scheduler gave up on (`httpTimeoutSeconds`) runs on until it.' }),
  // kube-scheduler's leader calls the extender one request at a time; a
  // second instance starts only when a call outlives the scheduler's
  // httpTimeout (5 s) but not the Lambda timeout (10 s). 4 is twice that
  // worst case, and caps the full cluster listings (one per new instance) and the watches at 4.
  reservedConcurrency: integer(0, 1000)
    .default(4)
    .meta({
      allowed: '0–1000; `0` = no reservation',
      description:
        'The most extender instances at once, which bounds the API-server load: every new instance lists all nodes and bound pods once, then reads only the changes (one watch per `EXTENDER_CACHE_TTL`, 5 s, while it serves). The scheduler\'s leader calls the extender one request at a time, so one instance is busy in steady state and a second starts only when a call outlives `httpTimeoutSeconds` (the Lambda runs on, up to `timeoutSeconds`); 4 is twice that. Past the bound Lambda throttles, the ALB answers 503, the scheduling attempt fails (`ignorable: false`) and the pod stays Pending until the scheduler retries it: never a wrong node. The reservation is also the extender\'s guarantee against the labeler and other functions using up the account\'s concurrency. `0` leaves it unbounded, for accounts whose concurrency quota is too small to reserve from (Lambda keeps 100 unreserved; new accounts may have a quota of 10). See [Concurrency, throttling and cold starts](extender.md#concurrency-throttling-and-cold-starts).',
    }),
  provisionedConcurrency: integer(0, 100)
    .default(0)
    .meta({
      allowed: '0–100, ≤ `reservedConcurrency` unless that is 0',
      description:
        'Instances kept warm (the ALB then invokes a `live` alias of the published version). The scheduling cycle waits on the extender for up to `httpTimeoutSeconds`, and a cold start (bundle load, `DescribeCluster`, first node list) spends part of it; 1 warm instance serves the steady serial load without the bundle load and init, at a fixed cost (billed while idle). A provisioned instance also connects (`DescribeCluster` for an attached cluster) and lists the cluster during its INIT, before any request, so its first answer comes from a warm cache (at 5,000 nodes / 50,000 pods, tens of ms instead of seconds; docs/extender.md, "Concurrency, throttling and cold starts").',
    }),
  expectedNodes: integer(1, 100_000)
    .optional()
    .meta({
      allowed: '1–100,000; with `expectedPods`',
      description:
        'The most nodes the cluster will have. With `expectedPods`, the stack checks that a cold extender instance can list them within `timeoutSeconds` at `memorySizeMiB` (from the measured listing, with a margin of 1.5): a call answers 503 before its timeout and leaves the listing running for the next one, so such an instance warms only after several failed calls, and every new instance pays it again. It refuses the configuration and names the memory that fits, or asks for `provisionedConcurrency` (which lists at INIT, before any request).',
    }),
  expectedPods: integer(1, 2_000_000)
    .optional()
    .meta({ allowed: '1–2,000,000; with `expectedNodes`', description: 'The most pods bound to nodes at once (every namespace); see `expectedNodes`.' }),
  // EC2 starts terminating a Capacity Block's instances 30 minutes before its end and Karpenter drains them 10 minutes before that.
  capacityBlockDrainMarginMinutes: integer(0, 1440)
    .default(40)
    .meta({
      description:
        'No pod starts on a Capacity Block node that ends before the pod\'s `gpu.nvidia.com/expected-runtime` plus this margin has passed, nor, without that annotation, within the margin of its end. 40 = EC2 reclaims the instances 30 minutes before the end and Karpenter drains their nodes 10 minutes earlier ([capacity.md](capacity.md#capacity-blocks-and-the-runtime-rule)). The extender\'s `EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN`.',
    }),
  environment: environmentSchema(`Extra settings for the extender, e.g. \`EXTENDER_CACHE_TTL: "2s"\`. ${ENVIRONMENT_PAGES}`),
})
  .check(crossField((ctx) => {
    const { mutualTls, certificateArn, certificateCaBundle, hostname, reservedConcurrency, provisionedConcurrency } = ctx.value;
    checkColdStart(ctx.value, ctx);
    if (certificateCaBundle !== undefined && certificateArn === undefined && !reported(ctx, 'certificateCaBundle', 'certificateArn')) {
      report(ctx, ['certificateCaBundle'], 'is only used with extender.certificateArn: it verifies that certificate');
    }
    if (!reported(ctx, 'certificateArn', 'hostname')) {
      if (certificateArn !== undefined && hostname === undefined) {
        report(ctx, ['hostname'], 'is required with extender.certificateArn: the scheduler verifies the certificate against this name, which you point at the ALB');
      }
      if (certificateArn === undefined && hostname !== undefined) report(ctx, ['hostname'], 'is only used with extender.certificateArn', hostname);
    }
    if (mutualTls === true && certificateArn !== undefined && !reported(ctx, 'certificateArn')) {
      report(ctx, ['certificateArn'], 'is only used with extender.mutualTls: false; with mutual TLS the stack issues the server certificate itself', certificateArn);
    }
    if (
      typeof reservedConcurrency === 'number' &&
      typeof provisionedConcurrency === 'number' &&
      reservedConcurrency > 0 &&
      provisionedConcurrency > reservedConcurrency &&
      !reported(ctx, 'reservedConcurrency', 'provisionedConcurrency')
    ) {
      report(ctx, ['provisionedConcurrency'], `must not exceed extender.reservedConcurrency (${reservedConcurrency})`, provisionedConcurrency);
    }
  }))
  .transform(({ listenerPort, ...extender }) => ({
    ...extender,
    // HTTPS with mutual TLS or a certificate, otherwise HTTP.
    listenerPort: listenerPort ?? (extender.certificateArn === undefined && !extender.mutualTls ? 80 : 443),
  }));

/**
 * A cold on-demand instance lists the cluster inside its first request; a
 * Lambda that times out is reset and the listing starts over in the next
 * instance, so a listing longer than the timeout fails every call for good.
 * A provisioned instance lists at INIT instead (lambdas/extender/init-warmup.ts).
 */
function checkColdStart(
  value: { expectedNodes?: unknown; expectedPods?: unknown; memorySizeMiB?: unknown; timeoutSeconds?: unknown; provisionedConcurrency?: unknown },
  ctx: CheckContext<unknown>,
): void {
  const { expectedNodes, expectedPods, memorySizeMiB, timeoutSeconds, provisionedConcurrency } = value;
  if ((expectedNodes === undefined) !== (expectedPods === undefined) && !reported(ctx, 'expectedNodes', 'expectedPods')) {
    report(ctx, [expectedNodes === undefined ? 'expectedNodes' : 'expectedPods'], 'is required with the other of extender.expectedNodes and extender.expectedPods: the cold-start check needs both');
    return;
  }
  if (typeof expectedNodes !== 'number' || typeof expectedPods !== 'number' || typeof memorySizeMiB !== 'number' || typeof timeoutSeconds !== 'number') return;
  if (typeof provisionedConcurrency === 'number' && provisionedConcurrency > 0) return;
  if (reported(ctx, 'expectedNodes', 'expectedPods', 'memorySizeMiB', 'timeoutSeconds', 'provisionedConcurrency')) return;
  const seconds = coldListSeconds(expectedNodes, expectedPods, memorySizeMiB);
  if (seconds * COLD_LIST_MARGIN < timeoutSeconds) return;
  const fits = memoryForColdList(expectedNodes, expectedPods, timeoutSeconds);
  const remedy =
    fits === undefined
      ? `even at ${FULL_VCPU_MIB} MiB (one vCPU) it does not fit: raise extender.timeoutSeconds or set extender.provisionedConcurrency (≥ 1), whose instances list at INIT`
      : `set extender.memorySizeMiB to ${fits} or more, raise extender.timeoutSeconds, or set extender.provisionedConcurrency (≥ 1), whose instances list at INIT`;
  report(
    ctx,
    ['memorySizeMiB'],
    `is too small for ${expectedNodes} nodes and ${expectedPods} pods: a cold extender instance's first listing takes about ${seconds.toFixed(1)} s at ${memorySizeMiB} MiB (× ${COLD_LIST_MARGIN} margin), not within extender.timeoutSeconds (${timeoutSeconds} s); each cold instance would fail its calls until a listing spread over several of them finishes: ${remedy}`,
    memorySizeMiB,
  );
}

interface ScheduledDefaults {
  readonly scheduleMinutes: number;
  readonly memorySizeMiB: number;
  readonly timeoutSeconds: number;
  readonly maxEventAgeSeconds: number;
  readonly retryAttempts: number;
}

interface ScheduledDocs {
  readonly scheduleMinutes: string;
  readonly timeoutSeconds: string;
  readonly retryAttempts: string;
  readonly environment: string;
}

type Schedule = { scheduleMinutes?: unknown; timeoutSeconds?: unknown };

function runsCannotOverlap(ctx: CheckContext<Schedule>): void {
  const { scheduleMinutes, timeoutSeconds } = ctx.value;
  if (typeof scheduleMinutes !== 'number' || typeof timeoutSeconds !== 'number' || reported(ctx, 'scheduleMinutes', 'timeoutSeconds')) return;
  if (timeoutSeconds >= scheduleMinutes * 60) {
    report(ctx, ['timeoutSeconds'], `must be below scheduleMinutes × 60 (${scheduleMinutes * 60}) so scheduled runs cannot overlap, got ${timeoutSeconds}`, timeoutSeconds);
  }
}

/** A function EventBridge runs on a schedule (and, for the labeler, on EC2 events). */
function scheduledFunctionShape(defaults: ScheduledDefaults, docs: ScheduledDocs) {
  return {
    scheduleMinutes: integer(1, 1440).default(defaults.scheduleMinutes).meta({ description: docs.scheduleMinutes }),
    memorySizeMiB: memorySize(defaults.memorySizeMiB, 'Memory, and CPU with it (Lambda gives CPU in proportion).'),
    timeoutSeconds: integer(1, 900).default(defaults.timeoutSeconds).meta({ allowed: '1–900, below `scheduleMinutes × 60`', description: docs.timeoutSeconds }),
    // Lambda's asynchronous-invocation limits, which also bound the EventBridge target's.
    maxEventAgeSeconds: integer(60, 21600).default(defaults.maxEventAgeSeconds).meta({ description: 'Events older than this are dead-lettered instead of retried.' }),
    retryAttempts: integer(0, 2).default(defaults.retryAttempts).meta({ description: docs.retryAttempts }),
    environment: environmentSchema(docs.environment),
  };
}

const RETRIES = 'Retries (EventBridge delivery and Lambda asynchronous invocation).';

export const labelerFunctionSchema = settings(
  scheduledFunctionShape(
    { scheduleMinutes: 5, memorySizeMiB: 256, timeoutSeconds: 240, maxEventAgeSeconds: 3600, retryAttempts: 2 },
    {
      scheduleMinutes: 'Periodic reconcile of all nodes (besides the EC2 `running` events).',
      timeoutSeconds:
        'Runs never overlap. Also bounds how long a `running` event waits for its node to register (`NODE_REGISTRATION_WAIT`, default `3m30s`, ends 15 s before the timeout at the latest, so it never becomes a Lambda timeout; shorten it with `labeler.environment.NODE_REGISTRATION_WAIT`; [labeler.md](labeler.md)).',
      retryAttempts: `${RETRIES} The labeler retries because a node registers minutes after its instance is \`running\`.`,
      environment: `Extra settings for the labeler, e.g. \`LABEL_KARPENTER_COMPAT: "true"\`. ${ENVIRONMENT_PAGES}`,
    },
  ),
).check(crossField(runsCannotOverlap));

export const reconcilerFunctionSchema = settings(
  scheduledFunctionShape(
    { scheduleMinutes: 1, memorySizeMiB: 512, timeoutSeconds: 50, maxEventAgeSeconds: 60, retryAttempts: 0 },
    {
      scheduleMinutes:
        'How often deletion costs and node utilization are recomputed. Also the reconciler\'s `RUN_INTERVAL` (the stack sets it): GPU nodes created within one interval count as launched on the dashboard. Hourly GPU-node cost uses the price table in `lambdas/reconciler/gpu-prices.ts`; other prices: `reconciler.environment.GPU_PRICES_USD` ([reconciler.md](reconciler.md#cluster-outcome-metrics)).',
      timeoutSeconds: 'Runs never overlap.',
      retryAttempts: `${RETRIES} The reconciler's next run is a retry anyway.`,
      environment: `Extra settings for the reconciler, e.g. \`POD_NAMESPACES: "serving"\`. ${ENVIRONMENT_PAGES} \`POD_NAMESPACES\` also scopes its RBAC: the stack then grants pod access only in those namespaces (a Role and RoleBinding in each, which kubectl can only apply into a namespace that exists, so create them before deploying, and redeploy after changing the list); unset, pod access is cluster-wide.`,
    },
  ),
)
  .check(crossField(runsCannotOverlap))
  .check(crossField((ctx) => {
    const environment = ctx.value.environment;
    if (typeof environment !== 'object' || environment === null || reported(ctx, 'environment')) return;
    try {
      podNamespacesFromEnv(environment);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      report(ctx, ['environment', 'POD_NAMESPACES'], `must be ${error.allowed}, got ${JSON.stringify(error.value)}`, error.value);
    }
  }))
  // The namespaces the reconciler is limited to, read as the reconciler reads
  // them: its pod access is granted in these (cdk/lib/access/).
  .transform((reconciler) => ({ ...reconciler, podNamespaces: podNamespacesFromEnv(reconciler.environment) }));
