// The reconciler and the labeler at scale against the local stand-ins: a real
// kube-apiserver (with etcd) and moto_server, all on 127.0.0.1 (local/).
// Creating the objects takes most of the time and is reported on its own.
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import type { MetricDatum } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import type { CoreV1Api } from '@kubernetes/client-node';
import { AppsV1Api, CoreV1Api as CoreV1ApiClass, KubeConfig } from '@kubernetes/client-node';
import { createLabelerHandler } from '../../lambdas/labeler/labeler-handler';
import { mapWithConcurrency } from '../../lambdas/common/map-with-concurrency';
import { SERVICE } from '../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import { OPT_IN_LABEL } from '../../lambdas/reconciler/config';
import { POD_DELETION_COST_ANNOTATION } from '../../lambdas/reconciler/pod-view';
import { reconcile } from '../../lambdas/reconciler/reconcile';
import { wireReconciler } from '../../lambdas/reconciler/wiring';
import { ensureKubeBinaries } from '../../local/builds/kube-binaries';
import { localLambdaContext } from '../../local/aws/lambda-context';
import type { ControlPlane } from '../../local/control-plane/control-plane';
import { startControlPlane } from '../../local/control-plane/control-plane';
import { installProductPolicies } from '../../local/policies/product-policies';
import type { GpuNode } from '../../local/nodes/gpu-nodes';
import { createGpuNode, LOCAL_CLUSTER_NAME } from '../../local/nodes/gpu-nodes';
import type { MotoServer } from '../../local/aws/moto';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { awsClientConfig, awsEnvironment, LOCAL_AWS_REGION, startMoto } from '../../local/aws/moto';
import { markPodRunning } from '../../local/nodes/pod-status';
import { createReplicaSetPods } from '../../local/nodes/replica-set-pods';
import { errorMessage } from '../../lambdas/common/error-message';

export interface ClusterHarness {
  readonly controlPlane: ControlPlane;
  readonly moto: MotoServer;
  readonly core: CoreV1Api;
  stop(): Promise<void>;
}

export async function startClusterHarness(log: (message: string) => void): Promise<ClusterHarness> {
  const binaries = await ensureKubeBinaries(log);
  const moto = await startMoto();
  let controlPlane: ControlPlane;
  try {
    controlPlane = await startControlPlane({ binaries, defaultScheduler: false, log });
  } catch (error) {
    await moto.stop();
    throw error;
  }
  try {
    // The labeler and the reconciler write here under their deployed limits.
    await installProductPolicies(controlPlane.info);
  } catch (error) {
    await controlPlane.stop();
    await moto.stop();
    throw error;
  }
  const admin = new KubeConfig();
  admin.loadFromFile(controlPlane.info.adminKubeconfig);
  return {
    controlPlane,
    moto,
    core: admin.makeApiClient(CoreV1ApiClass),
    async stop() {
      await controlPlane.stop().catch((error: unknown) => log(`control plane stop: ${String(error)}`));
      await moto.stop().catch((error: unknown) => log(`moto stop: ${String(error)}`));
    },
  };
}

interface CommandLog {
  /** Calls per command name (middleware at initialize: a retried call counts once). */
  readonly counts: Map<string, number>;
  /** Milliseconds spent inside the calls, all commands together (the stand-in's share of the wall time). */
  ms: number;
}

function countCommands(client: EC2Client | CloudWatchClient): CommandLog {
  const log: CommandLog = { counts: new Map(), ms: 0 };
  (client.middlewareStack as EC2Client['middlewareStack']).add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      log.counts.set(name, (log.counts.get(name) ?? 0) + 1);
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        log.ms += performance.now() - started;
      }
    },
    { step: 'initialize', name: 'benchCountCommands' },
  );
  return log;
}

function settledOrThrow<R>(results: readonly ({ ok: true; value: R } | { ok: false; error: unknown })[], what: string): R[] {
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    const first = failed[0] as { error: unknown };
    throw new Error(`${failed.length} of ${results.length} ${what} failed; first: ${errorMessage(first.error)}`);
  }
  return results.map((r) => (r as { value: R }).value);
}

const INSTANCE_TYPES = ['p4d.24xlarge', 'p5.48xlarge', 'g5.12xlarge', 'g5.xlarge', 'g6e.12xlarge', 'g4dn.xlarge', 't3.large'] as const;

export interface LabelerResult {
  readonly nodes: number;
  readonly creationMs: number;
  readonly wallMs: number;
  readonly ec2Calls: Readonly<Record<string, number>>;
  /** Time inside the EC2 calls (moto) during the first run. */
  readonly ec2Ms: number;
  readonly labeled: number;
  readonly failed: number;
  /** A second run over the same nodes: nothing left to write. */
  readonly steadyWallMs: number;
  readonly steadyEc2Calls: number;
  readonly steadyLabeled: number;
}

export async function benchLabeler(h: ClusterHarness, nodeCount: number, concurrency: number, log: (m: string) => void): Promise<LabelerResult> {
  const ec2 = new EC2Client(awsClientConfig(h.moto.url));
  const startedCreate = performance.now();
  const created = settledOrThrow(
    await mapWithConcurrency(Array.from({ length: nodeCount }, (_, i) => i), concurrency, (i) =>
      createGpuNode({ core: h.core, ec2 }, { instanceType: INSTANCE_TYPES[i % INSTANCE_TYPES.length] ?? 't3.large', zone: `${LOCAL_AWS_REGION}${'abc'[i % 3] ?? 'a'}` }),
    ),
    'node creations',
  );
  const creationMs = performance.now() - startedCreate;
  log(`[bench] labeler: ${created.length} nodes and instances created in ${(creationMs / 1000).toFixed(1)} s`);

  const counted = new EC2Client(awsClientConfig(h.moto.url));
  const calls = countCommands(counted);
  // Keep the table readable: the labeler's log line and EMF block would land on stdout.
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const telemetry = createTelemetry(SERVICE.labeler);
  const handler = createLabelerHandler({
    env: { ...awsEnvironment(h.moto.url), CLUSTER_NAME: LOCAL_CLUSTER_NAME },
    ...kubeconfigOverrides(h.controlPlane.info.lambdaKubeconfigs.labeler),
    ec2: counted,
    telemetry,
  });
  const event = { version: '0', id: 'bench', 'detail-type': 'Scheduled Event', source: 'aws.events', account: '123456789012', time: new Date().toISOString(), region: LOCAL_AWS_REGION, resources: [], detail: {} };
  const context = localLambdaContext({ functionName: SERVICE.labeler, timeoutMs: 300_000 });
  const t0 = performance.now();
  const first = await handler(event, context);
  const wallMs = performance.now() - t0;
  if (first.kind !== 'reconcile') throw new Error(`the labeler did not reconcile: ${JSON.stringify(first)}`);
  const ec2Calls = Object.fromEntries(calls.counts);
  const ec2Ms = calls.ms;
  calls.counts.clear();
  calls.ms = 0;
  const t1 = performance.now();
  const second = await handler(event, context);
  const steadyWallMs = performance.now() - t1;
  if (second.kind !== 'reconcile') throw new Error(`the labeler did not reconcile: ${JSON.stringify(second)}`);
  return {
    nodes: first.nodes,
    creationMs,
    wallMs,
    ec2Calls,
    labeled: first.labeled,
    failed: first.failed,
    steadyWallMs,
    ec2Ms,
    steadyEc2Calls: [...calls.counts.values()].reduce((a, b) => a + b, 0),
    steadyLabeled: second.labeled,
  };
}

export interface ReconcilerResult {
  readonly pods: number;
  readonly podsWithMetrics: number;
  readonly creationMs: number;
  readonly wallMs: number;
  readonly metricQueries: number;
  readonly getMetricDataCalls: number;
  /** Time inside the CloudWatch calls (moto) during the run. */
  readonly cloudWatchMs: number;
  readonly expectedGetMetricDataCalls: number;
  readonly podPatches: number;
  readonly nodePatches: number;
  readonly writeCap: number;
  /** Pods carrying a deletion cost afterwards, read back from the API server. */
  readonly annotatedPods: number;
  readonly podsEvaluated: number;
  readonly errors: number;
}

const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
/** Its own region: moto keeps CloudWatch data per region and scans it per query. */
const RECONCILER_REGION = 'eu-west-1';

export async function benchReconciler(
  h: ClusterHarness,
  options: { pods: number; podsWithMetrics: number; writeCap: number; concurrency: number },
  log: (m: string) => void,
): Promise<ReconcilerResult> {
  const ec2 = new EC2Client(awsClientConfig(h.moto.url));
  const namespace = `bench-reconciler-${Date.now().toString(36)}`;
  await h.core.createNamespace({ body: { metadata: { name: namespace } } });
  const nodes: GpuNode[] = [];
  for (let i = 0; i < 5; i++) nodes.push(await createGpuNode({ core: h.core, ec2 }, { instanceType: 'g5.12xlarge', labels: { 'bench-reconciler': namespace } }));

  const readySince = new Date(Date.now() - 3_600_000);
  const startedCreate = performance.now();
  // One ReplicaSet per node: the reconciler writes costs only on ReplicaSet-owned pods.
  const admin = new KubeConfig();
  admin.loadFromFile(h.controlPlane.info.adminKubeconfig);
  const clients = { core: h.core, apps: admin.makeApiClient(AppsV1Api) };
  const perNode = nodes.map((_, i) => Math.floor(options.pods / nodes.length) + (i < options.pods % nodes.length ? 1 : 0));
  const sets = await Promise.all(
    nodes.map((node, i) =>
      createReplicaSetPods(
        clients,
        { namespace, name: `bench-${i}`, replicas: perNode[i] ?? 0, nodeName: node.name, labels: { [OPT_IN_LABEL]: 'enabled', app: 'bench' }, image: PAUSE_IMAGE },
        30 * 60_000,
      ),
    ),
  );
  // Sorted as the API server lists them: metrics go to the first pods of the run.
  const names = sets
    .flat()
    .map((pod) => pod.metadata?.name ?? '')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  settledOrThrow(
    await mapWithConcurrency(names, options.concurrency, (name, i) =>
      markPodRunning(h.core, { namespace, name }, `10.1.${(i >> 8) & 255}.${i & 255}`, readySince),
    ),
    'pods marked Running',
  );
  const creationMs = performance.now() - startedCreate;
  log(`[bench] reconciler: ${options.pods} Running ReplicaSet pods created in ${(creationMs / 1000).toFixed(1)} s`);

  // Metrics for the first pods only: a few hundred distinct costs are enough to exceed the write cap.
  const cwConfig = { ...awsClientConfig(h.moto.url), region: RECONCILER_REGION, disableRequestCompression: true };
  const publisher = new CloudWatchClient(cwConfig);
  const timestamp = new Date(Date.now() - 30_000);
  const data: MetricDatum[] = [];
  for (let i = 0; i < options.podsWithMetrics; i++) {
    const Dimensions = [
      { Name: 'Namespace', Value: namespace },
      { Name: 'PodName', Value: names[i] ?? '' },
    ];
    data.push({ MetricName: 'active_requests', Value: 10 + (i % 150), Dimensions, Timestamp: timestamp });
    data.push({ MetricName: 'cache_hit_rate', Value: (i % 10) / 10, Dimensions, Timestamp: timestamp });
    data.push({ MetricName: 'avg_response_time_ms', Value: 50 + (i % 7) * 100, Dimensions, Timestamp: timestamp });
  }
  for (let i = 0; i < data.length; i += 1000) await publisher.send(new PutMetricDataCommand({ Namespace: 'GpuWorkloads', MetricData: data.slice(i, i + 1000) }));

  const cloudWatch = new CloudWatchClient(cwConfig);
  const calls = countCommands(cloudWatch);
  const env = {
    ...awsEnvironment(h.moto.url),
    AWS_REGION: RECONCILER_REGION,
    AWS_DEFAULT_REGION: RECONCILER_REGION,
    CLUSTER_NAME: LOCAL_CLUSTER_NAME,
    POD_NAMESPACES: namespace,
    NODE_SELECTOR: `bench-reconciler=${namespace}`,
    WARMUP_PERIOD: '0s',
    MAX_POD_WRITES_PER_RUN: String(options.writeCap),
  };
  const { config, deps } = await wireReconciler(env, { cloudWatch, ...kubeconfigOverrides(h.controlPlane.info.lambdaKubeconfigs.reconciler) });
  const t0 = performance.now();
  const summary = await reconcile(config.settings, deps);
  const wallMs = performance.now() - t0;

  const listed = await h.core.listNamespacedPod({ namespace });
  const annotatedPods = listed.items.filter((p) => p.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION] !== undefined).length;
  const getMetricDataCalls = calls.counts.get('GetMetricDataCommand') ?? 0;
  return {
    pods: options.pods,
    podsWithMetrics: options.podsWithMetrics,
    creationMs,
    wallMs,
    metricQueries: summary.metricQueries,
    getMetricDataCalls,
    cloudWatchMs: calls.ms,
    expectedGetMetricDataCalls: Math.ceil(summary.metricQueries / 500),
    podPatches: summary.deletionCostsWritten,
    nodePatches: summary.nodeUtilizationWritten,
    writeCap: options.writeCap,
    annotatedPods,
    podsEvaluated: summary.podsEvaluated,
    errors: summary.errors.length,
  };
}
