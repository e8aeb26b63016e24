// The demo: a cluster of GPU nodes the labeler labels, GPU pods the extender
// places (or rejects, with its reasons), and a Deployment whose scale-down
// follows the deletion costs the reconciler derived from CloudWatch metrics.
// Every step prints what happened and records checks for --exit-after-demo.
import { PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { extenderConfigFromEnv } from '../../lambdas/extender/config';
import { reconcilerConfigFromEnv } from '../../lambdas/reconciler/config';
import { POD_DELETION_COST_ANNOTATION } from '../../lambdas/reconciler/pod-view';
import { GPU_RESOURCE, NODE_ANNOTATION, NODE_LABEL, POD_ANNOTATION } from '../../lambdas/scheduling/keys';
import { createGpuNode, seedGpuLabels, type GpuNode } from '../nodes/gpu-nodes';
import { finishTerminatingPods, markPodRunning, podEvents, waitForPodScheduled } from '../nodes/pod-status';
import { sleep, waitFor } from '../common/wait';
import type { Delivery } from './event-bridge';
import { failedSchedulingLines, reasonSource } from '../../lambdas/scheduling/failed-scheduling';
import { functionEnvironment } from './function-environment';
import type { Output } from './output';
import type { LocalPipeline } from './pipeline';
import { outcomeTable, pendingLine, readOutcomeReport } from './outcome-report';
import { writeDemoReport } from './demo-report';
import { placementWhy, utilizationNote } from './placement-notes';
import { DEMO_NODE_ID_LABEL, DEMO_POD_KIND_LABEL, type Scenario, type ScenarioJob, type ScenarioScaleUp } from './scenario';
import { NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { errorMessage } from '../../lambdas/common/error-message';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

export interface Check {
  ok: boolean;
  text: string;
}

export interface DemoResult {
  checks: Check[];
  durationMs: number;
}

const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
/** How long a job may take to be bound or rejected (the first attempt is immediate). */
const PLACEMENT_TIMEOUT_MS = 30_000;
/** How long Karpenter may take to launch a node and the job to bind there (its batch window is 3 s here). */
const SCALE_UP_TIMEOUT_MS = 90_000;
/** How long the labeler may take to label a launched node: EC2 is polled for state changes every second here. */
const LAUNCHED_NODE_LABEL_TIMEOUT_MS = 30_000;

interface DemoNode {
  id: string;
  gpuNode: GpuNode;
}

function instanceIdOf(delivery: Delivery): string | undefined {
  const id = delivery.event.detail['instance-id'];
  return typeof id === 'string' ? id : undefined;
}

function labelerOutcome(delivery: Delivery): string {
  if (!delivery.ok) return `failed: ${delivery.error ?? ''}`;
  const result = delivery.result as { result?: unknown; reason?: unknown } | undefined;
  return typeof result?.result === 'string' ? result.result + (typeof result.reason === 'string' ? ` (${result.reason})` : '') : 'done';
}

function gpuSummary(labels: Record<string, string> | undefined): string {
  const model = labels?.[NODE_LABEL.gpuModel];
  if (!model) return '(no GPU labels)';
  return `${labels[NODE_LABEL.gpuCount] ?? '?'} × ${model}, ${labels[NODE_LABEL.gpuMemory] ?? '?'} MiB each`;
}

/** Labels that satisfy a selector of `k=v` / `k==v` terms (the opt-in label); undefined for other forms. */
function equalityLabels(selector: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const term of selector.split(',').map((t) => t.trim()).filter(Boolean)) {
    const match = /^([^=!\s()]+)\s*==?\s*([^=!\s()]*)$/.exec(term);
    if (!match?.[1]) return undefined;
    labels[match[1]] = match[2] ?? '';
  }
  return labels;
}

function asks(job: Pick<ScenarioJob, 'gpus' | 'model' | 'memoryMiB'>): string {
  return `${job.gpus} × ${job.model ?? 'any GPU'}${job.memoryMiB ? ` ≥ ${job.memoryMiB} MiB` : ''}`;
}

export class Demo {
  private readonly checks: Check[] = [];
  private readonly nodes: DemoNode[] = [];
  private readonly idByNodeName = new Map<string, string>();

  constructor(
    private readonly pipeline: LocalPipeline,
    private readonly scenario: Scenario,
    private readonly out: Output,
  ) {}

  async run(): Promise<DemoResult> {
    const started = Date.now();
    const { core } = this.pipeline.clients;
    await core.createNamespace({ body: { metadata: { name: this.scenario.namespace } } });
    await this.createAndLabelNodes();
    await this.publishNodeUtilization();
    await this.placeJobs();
    if (this.scenario.scaleUp) await this.scaleUp(this.scenario.scaleUp);
    if (this.scenario.service) await this.scaleDownService(this.scenario.service);
    await this.showOutcome();
    return { checks: this.checks, durationMs: Date.now() - started };
  }

  private check(ok: boolean, text: string): void {
    this.checks.push({ ok, text });
  }

  private nodeLabel(name: string | undefined): string {
    if (!name) return '-';
    return this.idByNodeName.get(name) ?? name;
  }

  // 1. EC2 instances + Node objects without GPU labels; the labeler labels them on "running".
  private async createAndLabelNodes(): Promise<void> {
    const { pipeline, out } = this;
    out.section(`Nodes: ${this.scenario.nodes.length} EC2 instances in moto, labeled by the labeler Lambda`);
    out.step('launching instances and registering their Nodes (no GPU labels yet) …');
    const launched = new Map<string, number>();
    for (const spec of this.scenario.nodes) {
      const gpuNode = await createGpuNode(pipeline.clients, {
        instanceType: spec.instanceType,
        zone: spec.zone,
        clusterName: pipeline.config.clusterName,
        labels: { [DEMO_NODE_ID_LABEL]: spec.id },
      });
      launched.set(gpuNode.instanceId, Date.now());
      this.nodes.push({ id: spec.id, gpuNode });
      this.idByNodeName.set(gpuNode.name, spec.id);
    }
    out.step('EC2 "running" state-change events → EventBridge rule → labeler …');
    const labelerDelivery = (instanceId: string): Delivery | undefined =>
      pipeline.deliveries.find((d) => d.functionName === pipeline.lambdas.labeler.functionName && instanceIdOf(d) === instanceId);
    try {
      await waitFor(
        'a labeler invocation for every instance',
        () => (this.nodes.every((n) => labelerDelivery(n.gpuNode.instanceId)) ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    } catch (error) {
      out.line(`  ${out.paint('red', errorMessage(error))}`);
    }

    const nodeList = await pipeline.clients.core.listNode();
    const byName = new Map<string, V1Node>(nodeList.items.map((n) => [n.metadata?.name ?? '', n]));
    const rows: string[][] = [];
    let correct = 0;
    for (const { id, gpuNode } of this.nodes) {
      const labels = byName.get(gpuNode.name)?.metadata?.labels ?? {};
      const expected = seedGpuLabels(gpuNode.facts);
      const ok = Object.entries(expected).every(([k, v]) => labels[k] === v) && (Object.keys(expected).length > 0 || !labels[NODE_LABEL.gpuModel]);
      if (ok) correct++;
      const delivery = labelerDelivery(gpuNode.instanceId);
      const took = delivery ? `${((delivery.finishedAt - (launched.get(gpuNode.instanceId) ?? delivery.finishedAt)) / 1000).toFixed(1)} s` : '-';
      const how = delivery ? `${labelerOutcome(delivery)}${delivery.attempts > 1 ? `, attempt ${delivery.attempts}` : ''}, ${took}` : 'no event';
      rows.push([id, gpuNode.name, gpuNode.facts.instanceType, gpuNode.zone, ok ? gpuSummary(labels) : out.paint('red', gpuSummary(labels)), how]);
    }
    out.table(['ID', 'NODE', 'INSTANCE TYPE', 'ZONE', 'GPU LABELS (gpu.nvidia.com/*)', 'LABELER'], rows);
    out.step(
      `ID names a node in the scenario and the tables below; NODE is its Kubernetes name (kubectl get nodes), the instance's private DNS name as on EKS; ` +
        `the label ${DEMO_NODE_ID_LABEL} carries the ID (kubectl get nodes -L ${DEMO_NODE_ID_LABEL})`,
    );
    this.check(correct === this.nodes.length, `${correct}/${this.nodes.length} nodes carry the GPU labels EC2 describes for their instance type`);

    const reconcile = await pipeline.runSchedule('labeler');
    const summary = reconcile.result as { nodes?: number; labeled?: number; alreadyCorrect?: number; failed?: number } | undefined;
    out.step(
      reconcile.ok
        ? `labeler schedule (Scheduled Event): ${summary?.nodes ?? '?'} nodes checked, ${summary?.labeled ?? '?'} relabeled, ${summary?.alreadyCorrect ?? '?'} already correct, ${summary?.failed ?? '?'} failed`
        : out.paint('red', `labeler schedule failed: ${reconcile.error ?? ''}`),
    );
    this.check(reconcile.ok && summary?.failed === 0, 'the labeler\'s scheduled reconcile ran without failures');
  }

  private functionEnv(name: 'extender' | 'reconciler'): Record<string, string> {
    const { config, moto } = this.pipeline;
    return functionEnvironment(config, name, { motoUrl: moto.url });
  }

  /** The reconciler's own configuration says where it reads metrics and which pods it looks at. */
  private reconcilerConfig() {
    return reconcilerConfigFromEnv(this.functionEnv('reconciler'));
  }

  private reconcilerMetricNames() {
    return this.reconcilerConfig().settings;
  }

  /** How long the extender may answer from a snapshot (its own setting); the next job waits that long. */
  private extenderCacheTtlMs(): number {
    try {
      return extenderConfigFromEnv(this.functionEnv('extender')).cacheTtlMs;
    } catch {
      return 5_000; // an invalid setting: the extender answers every call with its error anyway
    }
  }

  private async putMetrics(namespace: string, data: MetricDatum[]): Promise<void> {
    for (let i = 0; i < data.length; i += 500) {
      await this.pipeline.clients.cloudWatch.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 500) }));
    }
  }

  // 2. Container Insights-style node GPU utilization → reconciler → node annotation the extender scores.
  private async publishNodeUtilization(): Promise<void> {
    const measured = this.scenario.nodes.filter((n) => n.gpuUtilization !== undefined);
    if (measured.length === 0) return;
    const { out, pipeline } = this;
    out.section('GPU utilization: CloudWatch → reconciler Lambda → node annotation');
    const settings = this.reconcilerMetricNames();
    // 30 s back: moto truncates the query's EndTime to the second.
    const timestamp = new Date(Date.now() - 30_000);
    const data: MetricDatum[] = [];
    for (const spec of measured) {
      const node = this.nodes.find((n) => n.id === spec.id)?.gpuNode;
      if (!node || spec.gpuUtilization === undefined) continue;
      data.push({
        MetricName: settings.nodes.metrics.metricName,
        Value: spec.gpuUtilization,
        Unit: 'Percent',
        Timestamp: timestamp,
        Dimensions: [
          { Name: 'ClusterName', Value: pipeline.config.clusterName },
          { Name: 'InstanceId', Value: node.instanceId },
          { Name: 'NodeName', Value: node.name },
        ],
      });
    }
    await this.putMetrics(settings.nodes.metrics.namespace, data);
    out.step(`published ${settings.nodes.metrics.metricName} for ${data.length} node(s); reconciler schedule fires`);
    const run = await pipeline.runSchedule('reconciler');
    if (!run.ok) out.line(`  ${out.paint('red', `reconciler failed: ${run.error ?? ''}`)}`);
    const nodes = await pipeline.clients.core.listNode();
    const { bucketSize, hysteresis } = settings.nodes.discipline;
    let writtenCount = 0;
    const rows = measured.map((spec) => {
      const node = nodes.items.find((n) => this.idByNodeName.get(n.metadata?.name ?? '') === spec.id);
      const written = node?.metadata?.annotations?.[NODE_ANNOTATION.gpuUtilization];
      if (written !== undefined) writtenCount++;
      const note = spec.gpuUtilization === undefined ? '' : utilizationNote(spec.gpuUtilization, written, bucketSize);
      return [spec.id, `${spec.gpuUtilization ?? '-'} %`, written === undefined ? out.paint('red', 'not written') : `${NODE_ANNOTATION.gpuUtilization}=${written}`, note];
    });
    out.table(['ID', 'METRIC', 'ANNOTATION WRITTEN', ''], rows);
    out.step(
      `the reconciler writes utilization in buckets of ${bucketSize} (rounded down) and moves it only when the metric leaves its bucket ` +
        `by more than ${hysteresis} points (UTILIZATION_BUCKET_SIZE, UTILIZATION_HYSTERESIS): a few API writes, not one per node every minute`,
    );
    this.check(run.ok && writtenCount === measured.length, `GPU utilization annotations written on ${writtenCount}/${measured.length} measured nodes`);
  }

  // 3. GPU pods through gpu-scheduler → extender (behind the ALB adapter), one at a time.
  private async placeJobs(): Promise<void> {
    if (this.scenario.jobs.length === 0) return;
    const { out, pipeline, scenario } = this;
    const { core } = pipeline.clients;
    const namespace = scenario.namespace;
    out.section(`GPU jobs: schedulerName ${pipeline.config.scheduler.name} → extender Lambda behind the ALB`);
    const cacheTtlMs = this.extenderCacheTtlMs();
    const rows: string[][] = [];
    const reasons: { job: string; message: string }[] = [];
    for (const job of scenario.jobs) {
      const annotations: Record<string, string> = {};
      if (job.model) annotations[POD_ANNOTATION.gpuModel] = job.model;
      if (job.memoryMiB) annotations[POD_ANNOTATION.gpuMemory] = String(job.memoryMiB);
      await core.createNamespacedPod({
        namespace,
        body: {
          metadata: { name: job.name, labels: { app: job.name, [DEMO_POD_KIND_LABEL]: 'job' }, annotations },
          spec: {
            schedulerName: pipeline.config.scheduler.name,
            restartPolicy: 'Never',
            containers: [{ name: 'main', image: 'nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04', resources: { limits: { [GPU_RESOURCE]: String(job.gpus) } } }],
          },
        },
      });
      const ref = { namespace, name: job.name };
      const outcome = await waitFor(
        `pod ${namespace}/${job.name} to be bound or rejected`,
        async (): Promise<{ node: string } | { pending: string } | undefined> => {
          const pod = await core.readNamespacedPod(ref);
          if (pod.spec?.nodeName) return { node: pod.spec.nodeName };
          const failed = (await podEvents(core, ref)).find((e) => e.reason === 'FailedScheduling');
          return failed ? { pending: failed.message ?? '' } : undefined;
        },
        { timeoutMs: PLACEMENT_TIMEOUT_MS, intervalMs: 200 },
      ).catch((error: unknown): { pending: string } => ({ pending: `no decision: ${errorMessage(error)}` }));

      const view = pipeline.extenderTap.view(namespace, job.name);
      if ('node' in outcome) {
        await markPodRunning(core, ref, `10.1.0.${rows.length + 10}`);
        const why = placementWhy(view, outcome.node, (name) => this.nodeLabel(name));
        rows.push([job.name, asks(job), out.paint('green', `→ ${this.nodeLabel(outcome.node)}`), why]);
        const expected = job.expect;
        if (expected.kind === 'scheduled') {
          const ok = expected.nodes.length === 0 || expected.nodes.includes(this.nodeLabel(outcome.node));
          this.check(ok, `${job.name} landed on ${this.nodeLabel(outcome.node)}${expected.nodes.length ? ` (expected ${expected.nodes.join(' or ')})` : ''}`);
        } else if (expected.kind === 'pending') {
          this.check(false, `${job.name} landed on ${this.nodeLabel(outcome.node)} but was expected to stay Pending (${expected.reason})`);
        }
      } else {
        const message = outcome.pending;
        rows.push([job.name, asks(job), out.paint('yellow', 'Pending'), 'see reason below']);
        reasons.push({ job: job.name, message });
        const expected = job.expect;
        if (expected.kind === 'pending') {
          this.check(message.includes(expected.reason), `${job.name} stayed Pending: "${expected.reason}" (${reasonSource(expected.reason)})`);
        } else if (expected.kind === 'scheduled') {
          this.check(false, `${job.name} stayed Pending but was expected to land (${expected.nodes.join(' or ') || 'anywhere'}): ${message}`);
        }
      }
      // The extender answers from a cluster snapshot refreshed every EXTENDER_CACHE_TTL.
      await sleep(cacheTtlMs + 100);
    }
    out.table(['JOB', 'ASKS', 'RESULT', 'WHY (extender: filter, then prioritize scores 0..10)'], rows);
    for (const { job, message } of reasons) {
      out.line(`  ${out.paint('yellow', job)}: FailedScheduling event, as kubectl describe pod shows it (kube-scheduler's own reasons and the extender's)`);
      for (const line of failedSchedulingLines(message)) out.line(`      ${line}`);
    }
  }

  // 3b. Scale from zero: admission turns the job's intent into affinity, Karpenter launches what fits.
  private async scaleUp(scaleUp: ScenarioScaleUp): Promise<void> {
    const { out, pipeline } = this;
    const { core } = pipeline.clients;
    const { karpenter } = pipeline;
    const { namespace, job } = scaleUp;
    out.section(`Capacity on demand: namespace ${namespace} labelled ${NAMESPACE_OPT_IN.key}=${NAMESPACE_OPT_IN.value} → admission policies → Karpenter`);
    await core.createNamespace({ body: { metadata: { name: namespace, labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
    const annotations: Record<string, string> = {};
    if (job.model) annotations[POD_ANNOTATION.gpuModel] = job.model;
    if (job.memoryMiB) annotations[POD_ANNOTATION.gpuMemory] = String(job.memoryMiB);
    const before = new Set((await karpenter.listNodeClaims()).map((claim) => claim.metadata.name));
    const started = Date.now();
    const created = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: job.name, labels: { app: job.name, [DEMO_POD_KIND_LABEL]: 'job' }, annotations },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04', resources: { limits: { [GPU_RESOURCE]: String(job.gpus) } } }],
        },
      },
    });
    const terms = created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const firstKeys = [...new Set((terms[0]?.matchExpressions ?? []).map((e) => e.key))].join(', ');
    out.step(
      `${job.name} (${asks(job)}, written with no scheduler, toleration or affinity) admitted with schedulerName ${created.spec?.schedulerName ?? '-'}, ` +
        `the ${GPU_RESOURCE} toleration and ${terms.length} node-affinity terms, one per labeller (first: ${firstKeys || '-'})`,
    );
    const ref = { namespace, name: job.name };
    const launched = await waitFor(
      'a node launched by Karpenter',
      async () => (await karpenter.listNodeClaims()).find((claim) => !before.has(claim.metadata.name) && claim.status?.nodeName),
      { timeoutMs: SCALE_UP_TIMEOUT_MS, intervalMs: 250 },
    ).catch(() => undefined);
    const type = launched?.metadata.labels?.['node.kubernetes.io/instance-type'];
    if (launched === undefined) {
      const reasons = (await podEvents(core, ref)).filter((e) => e.reason === 'FailedScheduling').map((e) => `${e.source?.component ?? e.reportingComponent ?? '?'}: ${e.message ?? ''}`);
      out.step(out.paint('yellow', `Karpenter launched nothing within ${SCALE_UP_TIMEOUT_MS / 1000} s`));
      for (const reason of reasons) out.line(`      ${reason}`);
      this.check(false, `Karpenter launched ${scaleUp.instanceType} for ${job.name}`);
      return;
    }
    out.step(`the gpu-scheduler found no node; Karpenter launched ${type ?? '?'} (NodeClaim ${launched.metadata.name}) ${((Date.now() - started) / 1000).toFixed(1)} s after the pod was created`);
    const nodeName = await waitForPodScheduled(core, ref, SCALE_UP_TIMEOUT_MS).catch(() => undefined);
    if (nodeName !== undefined) {
      await markPodRunning(core, ref, '10.1.0.200');
      out.step(out.paint('green', `${job.name} → ${nodeName}, the new node, accepted by the extender ${((Date.now() - started) / 1000).toFixed(1)} s after it was created`));
    } else {
      out.step(out.paint('yellow', `${job.name} is not bound to the new node`));
    }
    this.check(type === scaleUp.instanceType, `Karpenter launched ${type ?? 'nothing'} for ${job.name} (expected ${scaleUp.instanceType})`);
    this.check(nodeName !== undefined && nodeName === launched.status?.nodeName, `${job.name} bound to the node Karpenter launched`);

    // As on EKS: the launch is an EC2 instance whose `running` event reaches the labeler, which finds the node by its providerID.
    const launchedNode = launched.status?.nodeName ?? '';
    const labels = await waitFor(
      `our labels on ${launchedNode}`,
      async () => {
        const current = (await core.readNode({ name: launchedNode })).metadata?.labels ?? {};
        return current[NODE_LABEL.gpuModel] ? current : undefined;
      },
      { timeoutMs: LAUNCHED_NODE_LABEL_TIMEOUT_MS, intervalMs: 250 },
    ).catch(() => undefined);
    const karpenterName = labels?.['karpenter.k8s.aws/instance-gpu-name'] ?? '-';
    out.step(
      labels
        ? `the labeler, woken by the instance's EC2 running event (${launched.status?.providerID ?? '?'}), labelled it ${gpuSummary(labels)} beside Karpenter's instance-gpu-name=${karpenterName}`
        : out.paint('yellow', `the labeler did not label ${launchedNode} within ${LAUNCHED_NODE_LABEL_TIMEOUT_MS / 1000} s`),
    );
    this.check(labels !== undefined, `the labeler labelled the node Karpenter launched`);
  }

  // 6. The outcome, as a deployment reports it: GPUs allocated, idle and stranded, GPU pods pending.
  private async showOutcome(): Promise<void> {
    const { pipeline, out } = this;
    const schedulerName = pipeline.config.scheduler.name;
    const report = await readOutcomeReport(pipeline.clients.core, schedulerName);
    out.section('Outcome: GPUs allocated, idle and stranded (stranded = idle GPUs the typical pod shapes cannot use, the FGD measure)');
    const { header, rows } = outcomeTable(report);
    out.table(header, rows);
    out.step(pendingLine(report, schedulerName));
    this.check(report.outcome.allocatable > 0 && report.outcome.allocated > 0, `the outcome counts ${report.outcome.allocated} of ${report.outcome.allocatable} GPUs allocated`);
    const whatIf = await writeDemoReport(pipeline.clients.core);
    out.step(`what-if report of this cluster (its ${whatIf.nodes} nodes' GPUs, the ${whatIf.pending} pending gpu-scheduler pod(s) and why): ${whatIf.file}`);
  }

  // 4. + 5. Deletion cost from per-pod metrics, then a scale-down.
  private async scaleDownService(service: NonNullable<Scenario['service']>): Promise<void> {
    const { out, pipeline, scenario } = this;
    const { core, apps } = pipeline.clients;
    out.section(`Service ${service.name}: per-pod metrics → reconciler Lambda → pod-deletion-cost`);
    const { settings, selection } = this.reconcilerConfig();
    // Where and which pods the configured reconciler evaluates (POD_NAMESPACES, POD_SELECTOR).
    let namespace = scenario.namespace;
    const [firstAllowed] = selection.namespaces;
    if (firstAllowed !== undefined && !selection.namespaces.includes(namespace)) {
      namespace = firstAllowed;
      out.step(`the reconciler only looks at POD_NAMESPACES=${selection.namespaces.join(',')}: ${service.name} goes to ${namespace}`);
      await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(() => undefined);
    }
    const optIn = equalityLabels(selection.podLabelSelector);
    if (!optIn) out.step(out.paint('yellow', `POD_SELECTOR=${selection.podLabelSelector} is not a plain k=v list: the demo cannot opt its pods in`));
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: service.name },
        spec: {
          replicas: service.replicas,
          selector: { matchLabels: { app: service.name } },
          template: {
            // The opt-in label goes on the pod template: the reconciler selects pods by it.
            metadata: { labels: { ...optIn, app: service.name } },
            spec: { containers: [{ name: 'app', image: PAUSE_IMAGE, resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
          },
        },
      },
    });
    const selector = `app=${service.name}`;
    const pods = await waitFor(
      `${service.replicas} pods of ${service.name} bound to nodes`,
      async () => {
        const list = await core.listNamespacedPod({ namespace, labelSelector: selector });
        const bound = list.items.filter((p) => p.spec?.nodeName);
        return bound.length === service.replicas ? bound : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Ready long enough ago that the reconciler's warm-up period does not apply.
    const readySince = new Date(Date.now() - (settings.policy.warmupSeconds + 300) * 1000);
    const names = pods.map((p) => p.metadata?.name ?? '').sort();
    for (const [i, name] of names.entries()) await markPodRunning(core, { namespace, name }, `10.2.0.${i + 10}`, readySince);

    const timestamp = new Date(Date.now() - 30_000);
    const metrics = settings.podMetrics;
    const data: MetricDatum[] = names.flatMap((name, i) => {
      const m = service.pods[i];
      if (!m) return [];
      const Dimensions = [
        { Name: metrics.namespaceDimension, Value: namespace },
        { Name: metrics.podNameDimension, Value: name },
      ];
      return [
        { MetricName: metrics.activeRequestsMetric, Value: m.activeRequests, Unit: 'Count', Timestamp: timestamp, Dimensions },
        { MetricName: metrics.cacheHitRateMetric, Value: m.cacheHitPercent / 100, Unit: 'None', Timestamp: timestamp, Dimensions },
        { MetricName: metrics.avgResponseTimeMetric, Value: m.responseTimeMs, Unit: 'Milliseconds', Timestamp: timestamp, Dimensions },
      ];
    });
    await this.putMetrics(metrics.namespace, data);
    out.step(`published ${metrics.activeRequestsMetric}, ${metrics.cacheHitRateMetric}, ${metrics.avgResponseTimeMetric} per pod to CloudWatch (${metrics.namespace}); reconciler schedule fires`);
    const run = await pipeline.runSchedule('reconciler');
    const summary = run.result as { podsEvaluated?: number; deletionCostsWritten?: number } | undefined;
    if (!run.ok) out.line(`  ${out.paint('red', `reconciler failed: ${run.error ?? ''}`)}`);

    const costOf = (pod: V1Pod | undefined): number => Number(pod?.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION] ?? 0);
    const afterReconcile = new Map((await core.listNamespacedPod({ namespace, labelSelector: selector })).items.map((p) => [p.metadata?.name ?? '', p]));
    const costs = new Map(names.map((name) => [name, costOf(afterReconcile.get(name))]));
    out.table(
      ['POD', 'NODE', 'ACTIVE REQ', 'CACHE HIT', 'LATENCY', 'DELETION COST'],
      names.map((name, i) => {
        const m = service.pods[i];
        const annotation = afterReconcile.get(name)?.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
        return [
          name,
          this.nodeLabel(afterReconcile.get(name)?.spec?.nodeName),
          String(m?.activeRequests ?? '-'),
          `${m?.cacheHitPercent ?? '-'} %`,
          `${m?.responseTimeMs ?? '-'} ms`,
          annotation === undefined ? out.paint('dim', '0 (not written: 0 is the default)') : annotation,
        ];
      }),
    );
    out.step(`reconciler: ${summary?.podsEvaluated ?? '?'} pods evaluated, ${summary?.deletionCostsWritten ?? '?'} deletion costs written`);
    this.check(run.ok && (summary?.deletionCostsWritten ?? 0) > 0, `the reconciler wrote ${summary?.deletionCostsWritten ?? 0} deletion cost(s) from CloudWatch metrics`);

    out.section(`Scale-down: ${service.name} ${service.replicas} → ${service.scaleTo} replicas (the ReplicaSet controller picks)`);
    // Let the controller-manager's informers see the new annotations first.
    await sleep(1_000);
    await apps.patchNamespacedDeployment({ namespace, name: service.name, body: { spec: { replicas: service.scaleTo } } }, MERGE_PATCH_OPTIONS);
    const toRemove = service.replicas - service.scaleTo;
    const removed = await waitFor(
      `the ReplicaSet controller to delete ${toRemove} pod(s)`,
      async () => {
        const list = await core.listNamespacedPod({ namespace, labelSelector: selector });
        const alive = new Set(list.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.name ?? ''));
        const gone = names.filter((n) => !alive.has(n));
        return gone.length >= toRemove ? gone : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    // No kubelet: finish the graceful deletions it would finish.
    await finishTerminatingPods(core, namespace);
    const kept = names.filter((n) => !removed.includes(n));
    const row = (name: string, state: string): string[] => [name, String(costs.get(name) ?? 0), state];
    out.table(
      ['POD', 'DELETION COST', ''],
      [...removed.map((n) => row(n, out.paint('red', 'removed'))), ...kept.map((n) => row(n, out.paint('green', 'kept')))],
    );
    const maxRemoved = Math.max(...removed.map((n) => costs.get(n) ?? 0));
    const minKept = Math.min(...kept.map((n) => costs.get(n) ?? 0));
    this.check(
      removed.length === toRemove && maxRemoved <= minKept,
      `scale-down removed the ${toRemove} least valuable pod(s) (highest removed cost ${maxRemoved} ≤ lowest kept cost ${kept.length ? minKept : '-'})`,
    );
  }
}
