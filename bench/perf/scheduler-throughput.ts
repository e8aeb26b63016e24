// GPU pods bound per second by the real kube-scheduler, with the extender
// (the real handler behind the local ALB adapter, in this process) and
// without it (the same gpu-scheduler profile, no extender), on the same
// cluster and the same pods, one after the other in one run. The pods are
// created while no scheduler runs, so the scheduler finds a full queue and
// never waits for pod creation; the rate is taken between the first and the
// last bind the watch sees, so scheduler start-up is not in it. Both runs
// are repeated under two client rate limits: kube-scheduler's defaults, which
// the deployed second scheduler keeps (qps 50, burst 100: binds are API
// writes, so this caps binds per second), and one high enough not to bind
// (what the scheduling cycles themselves sustain).
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { EC2Client } from '@aws-sdk/client-ec2';
import { mapWithConcurrency } from '../../lambdas/common/map-with-concurrency';
import { createGpuNode, describeInstanceType, seedGpuLabels } from '../../local/nodes/gpu-nodes';
import { startKubeScheduler } from '../../local/control-plane/kube-scheduler';
import type { ManagedProcess } from '../../local/common/managed-process';
import { awsClientConfig } from '../../local/aws/moto';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import type { ClusterHarness } from './cluster-bench';
import { median } from './stats';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

export interface ThroughputOptions {
  readonly nodes: number;
  readonly pods: number;
}

export interface SchedulerRun {
  readonly withExtender: boolean;
  readonly pods: number;
  /** Pods bound per second between the first and the last bind. */
  readonly podsPerSecond: number;
  readonly firstToLastBindMs: number;
  /** With the extender: its answers by HTTP status, and its handler's own time per call. */
  readonly extenderStatuses?: Readonly<Record<string, number>>;
  readonly extenderCalls?: number;
  /** Median time inside the handler per call (the rest of a call is HTTP and kube-scheduler's side). */
  readonly extenderHandlerMedianMs?: number;
}

export interface ClientRateLimit {
  readonly qps: number;
  readonly burst: number;
}

export interface RateLimitedComparison {
  readonly label: string;
  readonly clientRateLimit: ClientRateLimit;
  readonly without: SchedulerRun;
  readonly with: SchedulerRun;
  /** with / without. */
  readonly ratio: number;
}

export interface ThroughputResult extends ThroughputOptions {
  readonly instanceType: string;
  readonly comparisons: readonly RateLimitedComparison[];
  readonly nodeCreationMs: number;
}

/** kube-scheduler's defaults (KubeSchedulerConfiguration v1), which the deployed scheduler keeps. */
export const DEPLOYED_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: 50, burst: 100 };
const UNBOUNDING_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: 100_000, burst: 100_000 };

const INSTANCE_TYPE = 'p4d.24xlarge';
const CREATE_CONCURRENCY = 24;

function gpuPod(name: string): V1Pod {
  return {
    metadata: { name, labels: { bench: 'throughput' } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: '1' } } }],
    },
  };
}

/**
 * Records when the watch first sees each pod bound (ms since epoch). A watch
 * the server or the client library closes is reopened from the last
 * resourceVersion seen, so no bind goes unrecorded.
 */
function watchBinds(kubeConfig: KubeConfig, namespace: string, bound: Map<string, number>): { stop(): void } {
  let stopped = false;
  let resourceVersion: string | undefined;
  let current: AbortController | undefined;
  const open = (): void => {
    if (stopped) return;
    new Watch(kubeConfig)
      .watch(
        `/api/v1/namespaces/${namespace}/pods`,
        resourceVersion === undefined ? {} : { resourceVersion },
        (_type: string, pod: V1Pod) => {
          resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
          const name = pod.metadata?.name;
          if (name && pod.spec?.nodeName && !bound.has(name)) bound.set(name, Date.now());
        },
        () => setTimeout(open, 50),
      )
      .then(
        (controller) => {
          current = controller;
          if (stopped) controller.abort();
        },
        () => setTimeout(open, 50),
      );
  };
  open();
  return {
    stop() {
      stopped = true;
      current?.abort();
    },
  };
}

async function scheduleAll(
  h: ClusterHarness,
  kubeConfig: KubeConfig,
  options: ThroughputOptions,
  run: { withExtender: boolean; name: string; clientRateLimit: ClientRateLimit },
  log: (message: string) => void,
): Promise<SchedulerRun> {
  const namespace = (await h.core.createNamespace({ body: { metadata: { generateName: `throughput-${run.name}-` } } })).metadata?.name ?? '';
  const names = Array.from({ length: options.pods }, (_, i) => `gpu-${i}`);
  const created = await mapWithConcurrency(names, CREATE_CONCURRENCY, (name) => h.core.createNamespacedPod({ namespace, body: gpuPod(name) }));
  const failed = created.find((r) => !r.ok);
  if (failed && !failed.ok) throw failed.error;

  const bound = new Map<string, number>();
  const watch = watchBinds(kubeConfig, namespace, bound);
  let extender: RecordingExtender | undefined;
  let scheduler: ManagedProcess | undefined;
  try {
    // The extender as deployed (default cache TTL), reading with its least-privilege identity.
    extender = run.withExtender ? await startRecordingExtender(h.controlPlane.info.lambdaKubeconfigs.extender) : undefined;
    log(`[bench] e2e: ${options.pods} pods queued; kube-scheduler ${run.withExtender ? 'with' : 'without'} the extender, client qps ${run.clientRateLimit.qps}`);
    scheduler = await startKubeScheduler({
      binary: h.controlPlane.info.kubeSchedulerBinary,
      kubeconfig: h.controlPlane.info.schedulerKubeconfig,
      workDir: h.controlPlane.info.logDir,
      name: `throughput-${run.name}`,
      profiles: [GPU_SCHEDULER_NAME],
      gpuProfile: true,
      clientRateLimit: { ...run.clientRateLimit },
      ...(extender ? { extender: deployedExtenderSettings(extender.adapter.url) } : {}),
      // Verbosity 2 logs a line per bound pod; keep the log out of the measurement.
      verbosity: 0,
    });
    await waitFor(`${options.pods} pods bound ${run.withExtender ? 'with' : 'without'} the extender`, async () => (bound.size === options.pods ? true : undefined), {
      timeoutMs: 10 * 60_000,
      failFast: () => scheduler?.assertRunning(),
    });
  } finally {
    watch.stop();
    await scheduler?.stop();
    await extender?.stop();
  }
  const times = [...bound.values()].sort((a, b) => a - b);
  const firstToLastBindMs = (times.at(-1) ?? 0) - (times[0] ?? 0);
  // Binds after the first, over the time they took: the first bind opens the interval.
  const podsPerSecond = firstToLastBindMs > 0 ? ((options.pods - 1) * 1000) / firstToLastBindMs : Infinity;
  await h.core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  await h.core.deleteNamespace({ name: namespace });
  await waitFor(`the pods of ${namespace} to be gone`, async () =>
    (await h.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName!=' })).items.length === 0 ? true : undefined,
  { timeoutMs: 5 * 60_000 });
  const statuses: Record<string, number> = {};
  for (const r of extender?.responses ?? []) statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1;
  return {
    withExtender: run.withExtender,
    pods: options.pods,
    podsPerSecond,
    firstToLastBindMs,
    ...(extender
      ? { extenderStatuses: statuses, extenderCalls: extender.responses.length, extenderHandlerMedianMs: median(extender.responses.map((r) => r.handlerMs)) }
      : {}),
  };
}

/**
 * Creates `nodes` identical 8-GPU nodes, then schedules the same `pods`
 * one-GPU pods twice: without the extender, then with it.
 */
export async function benchSchedulerThroughput(h: ClusterHarness, options: ThroughputOptions, log: (message: string) => void): Promise<ThroughputResult> {
  if (options.pods > options.nodes * 8) throw new Error(`${options.pods} one-GPU pods do not fit on ${options.nodes} 8-GPU nodes`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(h.controlPlane.info.adminKubeconfig);
  const ec2 = new EC2Client(awsClientConfig(h.moto.url));
  const facts = await describeInstanceType(ec2, INSTANCE_TYPE);
  log(`[bench] e2e: creating ${options.nodes} ${INSTANCE_TYPE} nodes`);
  const startedAt = Date.now();
  const nodes = await mapWithConcurrency([...Array(options.nodes).keys()], CREATE_CONCURRENCY, () =>
    createGpuNode({ core: h.core, ec2 }, { instanceType: INSTANCE_TYPE, labels: seedGpuLabels(facts) }),
  );
  const failed = nodes.find((r) => !r.ok);
  if (failed && !failed.ok) throw failed.error;
  const nodeCreationMs = Date.now() - startedAt;
  const comparisons: RateLimitedComparison[] = [];
  for (const [label, clientRateLimit] of [
    ['client limit as deployed', DEPLOYED_CLIENT_RATE_LIMIT],
    ['client limit lifted', UNBOUNDING_CLIENT_RATE_LIMIT],
  ] as const) {
    const without = await scheduleAll(h, kubeConfig, options, { withExtender: false, name: 'without', clientRateLimit }, log);
    const withExtender = await scheduleAll(h, kubeConfig, options, { withExtender: true, name: 'with', clientRateLimit }, log);
    comparisons.push({ label, clientRateLimit, without, with: withExtender, ratio: withExtender.podsPerSecond / without.podsPerSecond });
  }
  return { ...options, instanceType: INSTANCE_TYPE, comparisons, nodeCreationMs };
}
