// Shared by the reconciler e2e files: opted-in pods made Running/Ready
// through the status subresource (no kubelet), per-pod metrics published to
// moto, and the reconciler's environment pointing at both.
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import type { AppsV1Api, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { OPT_IN_LABEL } from '../../lambdas/reconciler/config';
import { POD_DELETION_COST_ANNOTATION } from '../../lambdas/reconciler/pod-view';
import { join } from 'node:path';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { LAMBDA_ENTRIES } from '../../cdk/lib/functions/lambda-entries';
import type { LocalHarnessInfo } from './support/e2e-context';
import { LOCAL_CLUSTER_NAME } from '../../local/nodes/gpu-nodes';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { awsClientConfig, awsEnvironment, LOCAL_AWS_REGION } from '../../local/aws/moto';
import { LOCAL_ACCOUNT_ID } from '../../local/start/event-bridge';
import { LocalLambda } from '../../local/start/local-lambda';
import { markPodRunning } from '../../local/nodes/pod-status';
import { waitFor } from '../../local/common/wait';
import { createReplicaSetPods } from '../../local/nodes/replica-set-pods';

export const OPT_IN = { [OPT_IN_LABEL]: 'enabled' };
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

/** The reconciler's cluster: the control plane as the reconciler's least-privilege identity (its wiring's kubeConnection). */
export function reconcilerKube(info: LocalHarnessInfo): ReturnType<typeof kubeconfigOverrides> {
  return kubeconfigOverrides(info.controlPlane.lambdaKubeconfigs.reconciler);
}

/** The reconciler's env: moto, this test's namespace. */
export function reconcilerEnv(info: LocalHarnessInfo, namespace: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...awsEnvironment(info.motoUrl),
    CLUSTER_NAME: LOCAL_CLUSTER_NAME,
    POD_NAMESPACES: namespace,
    // Only this file's node: other e2e files create nodes in the same cluster.
    NODE_SELECTOR: `reconciler-e2e=${namespace}`,
    WARMUP_PERIOD: '0s',
    ...overrides,
  };
}

/**
 * The reconciler's bundle as Lambda runs it (its own process, its deployed
 * timeout and memory, its least-privilege identity), with `environment` on
 * top of PATH and TZ; each EMF and log record it writes goes to `onLogRecord`.
 */
export function startReconcilerLambda(
  info: LocalHarnessInfo,
  options: { functionName: string; environment: Record<string, string>; logDir: string; onLogRecord: (record: Record<string, unknown>) => void },
): Promise<LocalLambda> {
  return LocalLambda.start({
    functionName: options.functionName,
    entry: LAMBDA_ENTRIES.reconciler,
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC', ...options.environment },
    kubeconfig: info.controlPlane.lambdaKubeconfigs.reconciler,
    timeoutMs: APP_CONFIG_DEFAULTS.reconciler.timeoutSeconds * 1000,
    memoryMiB: APP_CONFIG_DEFAULTS.reconciler.memorySizeMiB,
    region: LOCAL_AWS_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    logFile: join(options.logDir, 'reconciler.log'),
    onLogRecord: options.onLogRecord,
  });
}

/**
 * One reconciler run: invokes it and waits until it logged its end
 * ("reconcile finished", with or without errors); its records, from
 * `records()` (every record the reconciler wrote so far, in order).
 */
export async function reconcileOnce(reconciler: LocalLambda | undefined, records: () => readonly Record<string, unknown>[], id: string): Promise<Record<string, unknown>[]> {
  if (reconciler === undefined) throw new Error('the reconciler was not started');
  const before = records().length;
  await reconciler.invoke({ id, time: new Date().toISOString() });
  return waitFor(`reconciler run ${id}`, () => {
    const run = records().slice(before);
    return run.some((r) => typeof r.message === 'string' && r.message.startsWith('reconcile finished')) ? run : undefined;
  });
}

/**
 * Running and Ready since `readySince`, as a kubelet would report it. The
 * Ready time matters: the ReplicaSet controller prefers deleting pods that
 * have been Ready for less time (after the deletion cost), so tests can make
 * the cost-less choice the opposite of the expected one.
 */
export function markReady(core: CoreV1Api, pod: V1Pod, readySince: Date): Promise<V1Pod> {
  return markPodRunning(core, { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' }, undefined, readySince);
}

/** Runs `work` over `items` with at most `limit` in flight (the API server is shared by every test). */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * `replicas` opted-in pods made by a real ReplicaSet (the one controller that
 * honours a deletion cost, so the only pods the reconciler writes), bound to
 * `nodeName`, Running and Ready since `readySince`. Returns their names
 * sorted, the order the API server lists (and the reconciler queries) them in.
 */
export async function createReadyReplicaSet(
  clients: { core: CoreV1Api; apps: AppsV1Api },
  namespace: string,
  name: string,
  replicas: number,
  nodeName: string,
  readySince: Date,
): Promise<string[]> {
  const pods = await createReplicaSetPods(clients, { namespace, name, replicas, nodeName, labels: { ...OPT_IN, app: 'bulk' }, image: PAUSE_IMAGE });
  await inParallel(pods, 8, (pod) => markReady(clients.core, pod, readySince));
  return pods.map((pod) => pod.metadata?.name ?? '');
}

export interface AppMetrics {
  activeRequests?: number;
  cacheHitRate?: number;
  avgResponseTimeMs?: number;
}

/**
 * A client on moto. Request compression is off: the SDK gzips PutMetricData
 * bodies over 10 KB, and moto 5.2.1 fails to read them ("Not a gzipped file")
 * with an HTML 500. GetMetricData requests are never compressed.
 */
export function cloudWatch(info: LocalHarnessInfo, region?: string): CloudWatchClient {
  const config = { ...awsClientConfig(info.motoUrl), disableRequestCompression: true };
  return new CloudWatchClient(region ? { ...config, region } : config);
}

/**
 * Publishes what a workload would, per pod, 30 s in the past: moto compares
 * timestamps against an EndTime truncated to the second, so a datapoint from
 * "now" could fall just outside the reconciler's window.
 */
export async function publishPodMetrics(cw: CloudWatchClient, namespace: string, metrics: ReadonlyMap<string, AppMetrics>): Promise<void> {
  const timestamp = new Date(Date.now() - 30_000);
  const data: MetricDatum[] = [];
  for (const [pod, m] of metrics) {
    const dimensions = [
      { Name: 'Namespace', Value: namespace },
      { Name: 'PodName', Value: pod },
    ];
    const add = (MetricName: string, value: number | undefined) => {
      if (value !== undefined) data.push({ MetricName, Value: value, Dimensions: dimensions, Timestamp: timestamp });
    };
    add('active_requests', m.activeRequests);
    add('cache_hit_rate', m.cacheHitRate);
    add('avg_response_time_ms', m.avgResponseTimeMs);
  }
  for (let i = 0; i < data.length; i += 1000) {
    await cw.send(new PutMetricDataCommand({ Namespace: 'GpuWorkloads', MetricData: data.slice(i, i + 1000) }));
  }
}

export async function publishNodeUtilization(cw: CloudWatchClient, node: { name: string; instanceId: string }, percent: number): Promise<void> {
  await cw.send(
    new PutMetricDataCommand({
      Namespace: 'ContainerInsights',
      MetricData: [
        {
          MetricName: 'node_gpu_utilization',
          Value: percent,
          Unit: 'Percent',
          Timestamp: new Date(Date.now() - 30_000),
          Dimensions: [
            { Name: 'ClusterName', Value: LOCAL_CLUSTER_NAME },
            { Name: 'InstanceId', Value: node.instanceId },
            { Name: 'NodeName', Value: node.name },
          ],
        },
      ],
    }),
  );
}

export function deletionCost(pod: V1Pod): string | undefined {
  return pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
}

export async function podsByName(core: CoreV1Api, namespace: string, labelSelector?: string): Promise<Map<string, V1Pod>> {
  const list = await core.listNamespacedPod({ namespace, ...(labelSelector ? { labelSelector } : {}) });
  return new Map(list.items.map((p) => [p.metadata?.name ?? '', p]));
}
