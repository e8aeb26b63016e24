// The second scheduler's own metrics reach CloudWatch: the reconciler reads
// the real kube-scheduler's /metrics through the real API server's pod proxy,
// with the reconciler's least-privilege identity and the very Role and
// admission policy the CDK app applies, after kube-scheduler scheduled (and failed to schedule) GPU
// pods, and the EMF lines it writes are parsed here. The scheduler process
// stands in for a replica: a Pod object labelled like the Deployment's pods,
// whose podIP is a non-loopback address of this machine where it listens.
import { CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schedulerMetricsReaderManifests, schedulerMetricsReaderName } from '../../cdk/lib/access/scheduler-metrics-rbac';
import { LAMBDA_KUBERNETES_ACCESS } from '../../cdk/lib/access/lambda-rbac-rules';
import { locallyBuiltRelease } from '../../cdk/app-config/kubernetes-releases';
import { SECURE_PORT } from '../../cdk/lib/scheduler/second-scheduler-manifests';
import { captureStdout } from '../unit/lambdas/observability/stdout-capture';
import { METRICS_NAMESPACE, SERVICE } from '../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import { parsePrometheusText } from '../../lambdas/reconciler/prometheus-text';
import { createReconcilerHandler } from '../../lambdas/reconciler/reconciler-handler';
import { SCHEDULER_NAME_LABEL } from '../../lambdas/reconciler/scheduler-metrics-config';
import { e2eHarness } from './support/e2e-context';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import { podLikeHostAddress } from '../../local/common/host-address';
import { httpGet } from '../../local/common/http-probe';
import type { ManagedProcess } from '../../local/common/managed-process';
import { markPodRunning, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { freeLoopbackPort } from '../../local/common/ports';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { reconcilerEnv, reconcilerKube } from './reconciler-fixtures';

const harness = e2eHarness();
const { core } = harness;
const objects = KubernetesObjectApi.makeApiClient(harness.kubeConfig);
const address = podLikeHostAddress();
const group = LAMBDA_KUBERNETES_ACCESS.reconciler.group;
/** Named as a Deployment names its pods: the admission policy admits the proxy only to such names. */
const REPLICA = `${GPU_SCHEDULER_NAME}-5d8f7c9b4-x7k2p`;

let namespace = '';
let node: GpuNode | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let port = 0;

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** One reconciler run (a warm container: the same handler each time), with the EMF lines it printed. */
async function runCapturingEmf(handler: ReturnType<typeof createReconcilerHandler>): Promise<EmfLine[]> {
  const capture = captureStdout();
  try {
    await handler({}, localLambdaContext({ functionName: SERVICE.reconciler, timeoutMs: 300_000 }));
  } finally {
    capture.restore();
  }
  return capture
    .text()
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return parsed && typeof parsed === 'object' && '_aws' in parsed ? [parsed as EmfLine] : [];
      } catch {
        return [];
      }
    });
}

/** The value of a metric in the EMF lines, by its dimension values (undefined when not emitted). */
function emitted(lines: readonly EmfLine[], metric: string, dimensions: Record<string, string> = {}): number | undefined {
  const line = lines.find(
    (l) =>
      l._aws.CloudWatchMetrics.some((d) => d.Namespace === METRICS_NAMESPACE && d.Metrics.some((m) => m.Name === metric)) &&
      Object.entries(dimensions).every(([k, v]) => l[k] === v),
  );
  const value = line?.[metric];
  return typeof value === 'number' ? value : undefined;
}

/** The scheduler's /metrics read directly (no credentials: the path is always allowed, as deployed). */
async function directScrape(): Promise<ReturnType<typeof parsePrometheusText>> {
  const res = await httpGet(`https://${address}:${port}/metrics`, { insecureTls: true });
  expect(res.status).toBe(200);
  return parsePrometheusText(res.body);
}

function sampleValue(samples: ReturnType<typeof parsePrometheusText>, name: string, labels: Record<string, string>): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const attempts = (samples: ReturnType<typeof parsePrometheusText>, result: string): number =>
  sampleValue(samples, 'scheduler_schedule_attempts_total', { profile: GPU_SCHEDULER_NAME, result });

beforeAll(async () => {
  namespace = await harness.createNamespace('scheduler-metrics');
  port = await freeLoopbackPort();
  for (const manifest of readerManifests()) await objects.create(manifest as KubernetesObject);
  const facts = await describeInstanceType(harness.ec2, 'g5.xlarge');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', labels: { ...seedGpuLabels(facts), 'scheduler-metrics-e2e': namespace } });
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url), { address, port });

  // The replica as the Deployment would make it: its label, Running and Ready, its pod IP.
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: REPLICA, labels: { [SCHEDULER_NAME_LABEL]: GPU_SCHEDULER_NAME } },
      spec: { nodeName: node.name, containers: [{ name: 'kube-scheduler', image: `registry.k8s.io/kube-scheduler:${locallyBuiltRelease()}` }] },
    },
  });
  await markPodRunning(core, { namespace, name: REPLICA }, address);
});

afterAll(async () => {
  // The policy and its binding are cluster-scoped: they outlive the namespace.
  for (const manifest of readerManifests().filter((o) => !(o.metadata as { namespace?: string }).namespace)) {
    await objects.delete(manifest as KubernetesObject).catch(() => undefined);
  }
  await scheduler?.stop();
  await extender?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (node) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
});

/** A fresh container's reconciler that only reads the scheduler's metrics (no opted-in pods, no node writes). */
const schedulerMetricsReconciler = () =>
  createReconcilerHandler({
    env: reconcilerEnv(harness.info, namespace, {
      NODE_UTILIZATION_ENABLED: 'false',
      POD_SELECTOR: 'app=none',
      SCHEDULER_NAMESPACE: namespace,
      GPU_SCHEDULER_NAME,
      // The local scheduler's port; the deployed one listens on kube-scheduler's default.
      SCHEDULER_METRICS_PORT: String(port),
    }),
    ...reconcilerKube(harness.info),
    telemetry: createTelemetry(SERVICE.reconciler),
  });

/** The objects the CDK app applies, for this file's namespace and the local scheduler's port. */
const readerManifests = () => schedulerMetricsReaderManifests({ namespace, schedulerName: GPU_SCHEDULER_NAME, port, group });

const gpuPod = (name: string) => ({
  metadata: { name },
  spec: {
    schedulerName: GPU_SCHEDULER_NAME,
    containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
  },
});

describe('the second scheduler’s metrics through the pod proxy', () => {
  it('emits ready replicas, attempts by result, mean attempt latency and pending pods by queue', async () => {
    const handler = schedulerMetricsReconciler();
    expect(port).not.toBe(SECURE_PORT);

    const before = await directScrape();
    const first = await runCapturingEmf(handler);
    expect(emitted(first, 'GpuSchedulerReadyReplicas')).toBe(1);
    // A cold container has no previous counters: no attempts, no latency (rather than a guess).
    expect(emitted(first, 'GpuSchedulerAttempts', { Result: 'scheduled' })).toBeUndefined();
    expect(emitted(first, 'GpuSchedulerAttemptLatency')).toBeUndefined();
    // Queues are gauges: known at once. Nothing is pending yet.
    for (const queue of ['active', 'backoff', 'unschedulable', 'gated']) expect(emitted(first, 'GpuSchedulerPendingPods', { Queue: queue }), queue).toBe(0);
    expect(emitted(first, 'ReconcilerErrors', { Kind: 'SchedulerMetrics' })).toBeUndefined();

    // The node has one GPU: the first pod is placed, the second cannot be.
    await core.createNamespacedPod({ namespace, body: gpuPod('fits') });
    expect(await waitForPodScheduled(core, { namespace, name: 'fits' })).toBe(node?.name);
    await core.createNamespacedPod({ namespace, body: gpuPod('waits') });
    await waitForPodEvent(core, { namespace, name: 'waits' }, (e) => e.reason === 'FailedScheduling');
    // Settled: the pod that cannot fit sits in the unschedulable queue (retries come only on cluster events).
    const after = await waitFor('the waiting pod to settle in the unschedulable queue', async () => {
      const samples = await directScrape();
      return sampleValue(samples, 'scheduler_pending_pods', { queue: 'unschedulable' }) === 1 ? samples : undefined;
    });

    const second = await runCapturingEmf(handler);
    expect(emitted(second, 'GpuSchedulerReadyReplicas')).toBe(1);
    const scheduled = emitted(second, 'GpuSchedulerAttempts', { Result: 'scheduled' });
    const unschedulable = emitted(second, 'GpuSchedulerAttempts', { Result: 'unschedulable' });
    expect(scheduled).toBe(1);
    expect(unschedulable).toBeGreaterThanOrEqual(1);
    expect(emitted(second, 'GpuSchedulerAttempts', { Result: 'error' })).toBe(0);
    // The deltas are kube-scheduler's own counters, read the same way directly.
    expect(scheduled).toBe(attempts(after, 'scheduled') - attempts(before, 'scheduled'));
    expect(unschedulable).toBe(attempts(after, 'unschedulable') - attempts(before, 'unschedulable'));
    const latency = emitted(second, 'GpuSchedulerAttemptLatency');
    const durationName = 'scheduler_scheduling_attempt_duration_seconds';
    const profile = { profile: GPU_SCHEDULER_NAME };
    const expectedMs =
      ((sampleValue(after, `${durationName}_sum`, profile) - sampleValue(before, `${durationName}_sum`, profile)) /
        (sampleValue(after, `${durationName}_count`, profile) - sampleValue(before, `${durationName}_count`, profile))) *
      1000;
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeCloseTo(expectedMs, 6);
    expect(emitted(second, 'GpuSchedulerPendingPods', { Queue: 'unschedulable' })).toBe(1);
    expect(emitted(second, 'GpuSchedulerPendingPods', { Queue: 'active' })).toBe(0);
    expect(emitted(second, 'GpuSchedulerPendingPods', { Queue: 'gated' })).toBe(0);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });

  it('admits the reconciler’s proxy only to /metrics of the scheduler’s pods, though RBAC grants pods/proxy on every pod here', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(harness.info.controlPlane.lambdaKubeconfigs.reconciler);
    const reconcilerCore = kc.makeApiClient(CoreV1Api);
    // Another pod of the namespace, reachable at the same address (the scheduler answers for it).
    await core.createNamespacedPod({ namespace, body: { metadata: { name: 'other' }, spec: { nodeName: node?.name, containers: [{ name: 'c', image: 'x' }] } } });
    await markPodRunning(core, { namespace, name: 'other' }, address);
    const refusal = async (name: string, path: string): Promise<string> => {
      try {
        await reconcilerCore.connectGetNamespacedPodProxyWithPath({ name: `https:${name}:${port}`, namespace, path });
        return 'admitted';
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
    };
    const policy = `ValidatingAdmissionPolicy '${schedulerMetricsReaderName(group)}'`;
    expect(await waitFor('the policy to refuse another pod', async () => ((await refusal('other', 'metrics')).includes(policy) ? true : undefined))).toBe(true);
    expect(await refusal('other', 'metrics')).toContain(`may proxy only to the ${GPU_SCHEDULER_NAME} pods' port ${port}`);
    expect(await refusal(REPLICA, 'configz')).toContain('may proxy only to /metrics');
    expect(await refusal(REPLICA, 'metrics')).toBe('admitted');
  });

  it('counts a scrape the API server refuses (no pods/proxy right) as a SchedulerMetrics error and still reports the replicas', async () => {
    const name = schedulerMetricsReaderName(group);
    // Without the Role the reconciler can still list pods here (the harness grants pods cluster-wide, as the
    // CDK app does when POD_NAMESPACES is unset) but not proxy to them.
    await objects.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace } });
    const handler = schedulerMetricsReconciler();
    const lines = await waitFor('the RBAC change to take effect', async () => {
      const emf = await runCapturingEmf(handler);
      return emitted(emf, 'ReconcilerErrors', { Kind: 'SchedulerMetrics' }) === 1 ? emf : undefined;
    });
    expect(emitted(lines, 'GpuSchedulerReadyReplicas')).toBe(1);
    expect(emitted(lines, 'GpuSchedulerPendingPods', { Queue: 'unschedulable' })).toBeUndefined();
  });
});
