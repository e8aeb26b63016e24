// Prometheus scrapes the second scheduler as the docs say to set it up: the
// PodMonitor the stack applies is checked against the Prometheus Operator's
// real CRD, and a real Prometheus (built from its Go module) runs the scrape
// job the Operator generates from that PodMonitor, discovering the scheduler's
// pod through the real API server with a ServiceAccount token that has only
// the documented Role. Then every Prometheus query of the Grafana dashboard is
// run against it. The scheduler process stands in for a replica: a Pod object
// labelled like the Deployment's pods, declaring its named port, whose podIP
// is a non-loopback address of this machine where the scheduler listens.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../cdk/app-config/parse-app-config';
import { dashboardPromQueries, grafanaDashboard } from '../../cdk/lib/monitoring/grafana-dashboard';
import { schedulerPodMonitorManifests, schedulerScrapeJob, schedulerScrapeJobLabel } from '../../cdk/lib/monitoring/scheduler-scrape';
import { SECURE_PORT_NAME } from '../../cdk/lib/scheduler/second-scheduler-manifests';
import { ensurePrometheusBinary } from '../../local/builds/prometheus-binary';
import { installCrd, readCrdFile } from '../../local/addons/crds';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import { podLikeHostAddress } from '../../local/common/host-address';
import type { ManagedProcess } from '../../local/common/managed-process';
import { markPodRunning, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { freeLoopbackPort } from '../../local/common/ports';
import { startPrometheus, type LocalPrometheus } from '../../local/addons/prometheus';
import { podMonitorCrdFile } from '../../local/builds/prometheus-operator-crds';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;
const objects = KubernetesObjectApi.makeApiClient(harness.kubeConfig);
const address = podLikeHostAddress();
const REPLICA = `${GPU_SCHEDULER_NAME}-5d8f7c9b4-x7k2p`;
const PROMETHEUS_SA = 'prometheus';
const UNBOUND_SA = 'prometheus-unbound';
/** Grafana's $__rate_interval is at least four scrape intervals; the window here covers the whole run. */
const RATE_WINDOW = '5m';

let namespace = '';
let monitoringNamespace = '';
let workDir = '';
let node: GpuNode | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let prometheus: LocalPrometheus | undefined;
let port = 0;

const target = () => ({ namespace, schedulerName: GPU_SCHEDULER_NAME });
const podMonitorManifests = () =>
  schedulerPodMonitorManifests({ ...target(), ...parseAppConfig(undefined).monitoring.podMonitor, prometheusNamespace: monitoringNamespace, prometheusServiceAccount: PROMETHEUS_SA, interval: '1s' });

async function installPodMonitorCrd(): Promise<void> {
  const file = await podMonitorCrdFile();
  await installCrd(harness.kubeConfig, readCrdFile(file), file);
}

/** A token of the ServiceAccount, written where Prometheus reads it (as a projected token would be). */
async function serviceAccountTokenFile(name: string): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace: monitoringNamespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({ name, namespace: monitoringNamespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const file = join(workDir, `${name}.token`);
  writeFileSync(file, request.status?.token ?? '', { mode: 0o600 });
  return file;
}

/**
 * The scrape job of the stack, pointed at this API server: inside a cluster
 * kubernetes_sd uses the pod's in-cluster credentials; here the
 * ServiceAccount's token and the API server's CA are given explicitly.
 */
function outOfClusterJob(tokenFile: string): Record<string, unknown> {
  const job = schedulerScrapeJob(target(), '1s');
  const [sd] = job.kubernetes_sd_configs as Record<string, unknown>[];
  const caFile = join(workDir, 'apiserver-ca.crt');
  const cluster = harness.kubeConfig.getCurrentCluster();
  writeFileSync(caFile, Buffer.from(cluster?.caData ?? '', 'base64'));
  return { ...job, kubernetes_sd_configs: [{ ...sd, api_server: cluster?.server, authorization: { credentials_file: tokenFile }, tls_config: { ca_file: caFile } }] };
}

const gpuPod = (name: string) => ({
  metadata: { name },
  spec: { schedulerName: GPU_SCHEDULER_NAME, containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
});

beforeAll(async () => {
  const binary = await ensurePrometheusBinary();
  await installPodMonitorCrd();
  namespace = await harness.createNamespace('prometheus-scrape');
  monitoringNamespace = await harness.createNamespace('monitoring');
  workDir = join(harness.info.controlPlane.logDir, `prometheus-${namespace}`);
  mkdirSync(workDir, { recursive: true });
  for (const manifest of podMonitorManifests()) await objects.create(manifest as KubernetesObject);

  port = await freeLoopbackPort();
  const facts = await describeInstanceType(harness.ec2, 'g5.xlarge');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', labels: { ...seedGpuLabels(facts), 'prometheus-scrape-e2e': namespace } });
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url), { address, port });
  // The replica as the Deployment makes it: its label, its named port (the local scheduler's), Running and Ready.
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: REPLICA, labels: { 'app.kubernetes.io/name': GPU_SCHEDULER_NAME } },
      spec: { nodeName: node.name, containers: [{ name: 'kube-scheduler', image: 'registry.k8s.io/kube-scheduler', ports: [{ name: SECURE_PORT_NAME, containerPort: port }] }] },
    },
  });
  await markPodRunning(core, { namespace, name: REPLICA }, address);

  prometheus = await startPrometheus({ binary: binary.binary, scrapeConfigs: [outOfClusterJob(await serviceAccountTokenFile(PROMETHEUS_SA))], scrapeInterval: '1s', workDir: join(workDir, 'bound') });
  await waitFor('the first scrape', async () => ((await prometheus?.activeTargets())?.some((t) => t.health === 'up') ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });

  // Scheduling while Prometheus watches, so the counters move inside its rate windows.
  // The node has one GPU: the first pod is placed, the second cannot be.
  await core.createNamespacedPod({ namespace, body: gpuPod('fits') });
  expect(await waitForPodScheduled(core, { namespace, name: 'fits' })).toBe(node.name);
  await core.createNamespacedPod({ namespace, body: gpuPod('waits') });
  await waitForPodEvent(core, { namespace, name: 'waits' }, (e) => e.reason === 'FailedScheduling');
  // A counter's first sample already holds its first increments, so rate() sees only later ones: one
  // more attempt once Prometheus has the series, as a busy scheduler's counters keep moving.
  await waitFor('the attempt series in Prometheus', async () => ((await prometheus?.query('scheduler_schedule_attempts_total{result="unschedulable"}'))?.length ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });
  await core.createNamespacedPod({ namespace, body: gpuPod('waits-too') });
  await waitForPodEvent(core, { namespace, name: 'waits-too' }, (e) => e.reason === 'FailedScheduling');
}, 900_000);

afterAll(async () => {
  await prometheus?.stop();
  await scheduler?.stop();
  await extender?.stop();
  if (monitoringNamespace) await core.deleteNamespace({ name: monitoringNamespace }).catch(() => undefined);
  if (namespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (node) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
});

describe('the PodMonitor', () => {
  it('is accepted by the Prometheus Operator\'s CRD, which is a real check: a malformed one is refused', async () => {
    const [podMonitor] = podMonitorManifests();
    if (!podMonitor) throw new Error('no PodMonitor');
    const stored = await objects.read({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: `${GPU_SCHEDULER_NAME}-metrics`, namespace } });
    expect((stored as { spec?: unknown }).spec).toEqual((podMonitor as { spec: unknown }).spec);
    const malformed = { ...podMonitor, metadata: { name: 'malformed', namespace }, spec: { ...(podMonitor as { spec: object }).spec, podMetricsEndpoints: [{ port: SECURE_PORT_NAME, scheme: 'ftp' }] } };
    await expect(objects.create(malformed as KubernetesObject)).rejects.toThrow(/scheme/);
  });
});

describe('a real Prometheus on the scrape job', () => {
  it('discovers the replica with only the documented Role and scrapes it, labelled as the Operator labels it', async () => {
    const up = await waitFor(
      'the replica scraped',
      async () => {
        const targets = await prometheus?.activeTargets();
        return targets?.find((t) => t.health === 'up');
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(up.labels).toMatchObject({ job: schedulerScrapeJobLabel(target()), namespace, pod: REPLICA, container: 'kube-scheduler', endpoint: SECURE_PORT_NAME });
    expect(up.labels.instance).toBe(`${address}:${port}`);
  });

  it('answers every Prometheus query of the Grafana dashboard with data from the gpu-scheduler', async () => {
    const model = grafanaDashboard({ clusterName: 'local', cloudWatchDashboardName: 'local-gpu-scheduling', job: schedulerScrapeJobLabel(target()), profile: GPU_SCHEDULER_NAME });
    const queries = dashboardPromQueries(model);
    expect(queries.length).toBeGreaterThanOrEqual(6);
    for (const { panel, expr } of queries) {
      const query = expr.replaceAll('$__rate_interval', RATE_WINDOW);
      const samples = await waitFor(`data for "${panel}": ${query}`, async () => {
        const result = (await prometheus?.query(query)) ?? [];
        return result.length > 0 && result.every((s) => Number.isFinite(Number(s.value[1]))) ? result : undefined;
      }, { timeoutMs: 60_000, intervalMs: 1_000 });
      expect(samples.length, `${panel}: ${query}`).toBeGreaterThan(0);
    }
    // The numbers are the scheduler's: the two pods that cannot fit wait in the unschedulable queue.
    const byQueue = queries.find((q) => q.expr.includes('by (queue)'));
    const pending = await prometheus?.query(byQueue?.expr ?? '');
    expect(pending?.find((s) => s.metric.queue === 'unschedulable')?.value[1]).toBe('2');
    const attempts = queries.find((q) => q.expr.includes('by (result)'));
    const results = (await prometheus?.query(attempts?.expr.replaceAll('$__rate_interval', RATE_WINDOW) ?? '')) ?? [];
    expect(results.map((s) => s.metric.result).sort()).toEqual(expect.arrayContaining(['scheduled', 'unschedulable']));
  });

  it('without the Role\'s binding, discovery is forbidden and nothing is scraped: the Role is what makes it work', async () => {
    const unbound = await startPrometheus({
      binary: (await ensurePrometheusBinary()).binary,
      scrapeConfigs: [outOfClusterJob(await serviceAccountTokenFile(UNBOUND_SA))],
      scrapeInterval: '1s',
      workDir: join(workDir, 'unbound'),
    });
    try {
      await waitFor('the forbidden pod list in the log', () => (/forbidden/i.test(readFileSync(unbound.process.logFile, 'utf8')) ? true : undefined), { timeoutMs: 60_000, intervalMs: 500 });
      expect(await unbound.activeTargets()).toEqual([]);
      expect(readFileSync(unbound.process.logFile, 'utf8')).toContain(`system:serviceaccount:${monitoringNamespace}:${UNBOUND_SA}`);
    } finally {
      await unbound.stop();
    }
  });
});
