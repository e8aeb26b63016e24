// --exact: the dump loaded into the local harness's real kube-apiserver, and
// the real kube-scheduler with the deployed gpu-scheduler profile and the
// extender placing its pending pods; placements and FailedScheduling
// reasons are read back from the API (as kubernetes-sigs/kube-scheduler-simulator
// does for the default scheduler).
import { CoreV1Api, KubeConfig, SchedulingV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import { errorMessage } from '../lambdas/common/error-message';
import { weightVariable } from '../lambdas/extender/config';
import { isRecord } from '../lambdas/scheduling/kube-json';
import type { ExtenderRanking } from '../lambdas/extender/decision';
import type { Env } from '../lambdas/env';
import { mapWithConcurrency } from '../lambdas/common/map-with-concurrency';
import { clusterOutcome } from '../lambdas/scheduling/cluster-outcome';
import { failedSchedulingReasons, reasonSource } from '../lambdas/scheduling/failed-scheduling';
import { unschedulableMessage } from '../lambdas/scheduling/pending-gpu-pods';
import type { ProfileOptions } from '../lambdas/scheduling/profiles';
import { rejectionCode } from '../lambdas/scheduling/reasons';
import { snapshotFromKubernetes } from '../lambdas/scheduling/snapshot';
import type { ControlPlaneInfo } from '../local/control-plane/control-plane';
import { startKubeScheduler } from '../local/control-plane/kube-scheduler';
import type { ManagedProcess } from '../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../local/extender-host/recording-extender';
import { deployedExtenderSettings, type ExtenderSettings } from '../local/scheduler-config';
import { sleep } from '../local/common/wait';
import { BUILT_IN_NAMESPACES, nodeStatus, nodeToCreate, podToCreate, priorityClassesFor } from './exact-objects';
import { pluginOfReason } from './in-tree/filters';
import type { SchedPod } from './in-tree/pod-spec';
import type { ExtenderRejections, FilterCount, PlacedPod, SimulationResult, UnschedulablePod } from './simulate';
import { GPU_SCHEDULER, planDump } from './simulate';
import { nodesUsage } from './node-usage';
import { MERGE_PATCH_OPTIONS } from '../lambdas/kube/merge-patch';


export interface ExactOptions {
  readonly explain?: boolean;
  /** The extender's weight in the scheduler configuration; default: the deployed one. */
  readonly extenderWeight?: number;
  readonly log?: (message: string) => void;
  /** How long one pod may take to be bound or found unschedulable. */
  readonly podTimeoutMs?: number;
}

/** What the real path leaves out (it runs everything kube-scheduler runs). */
const EXACT_NOT_MODELLED = [
  'volumes: PersistentVolumes, PVCs and StorageClasses are not in a pods dump, so pods that use claims fail VolumeBinding here',
  'DRA: ResourceSlices, DeviceClasses and ResourceClaims are not loaded, so pods with claims fail DynamicResources here',
  'preemption runs for real: a pending pod of higher priority may evict bound pods of the dump',
  'percentageOfNodesToScore samples nodes as on the cluster, and ties are broken at random: a rerun may differ where totals are equal',
];

/** The extender's settings as environment variables (docs/extender.md), so --weights reaches the real extender. */
export function extenderEnvironment(profile: ProfileOptions): Env {
  const env: Record<string, string> = {
    // Every call sees every earlier bind: the deployed 5 s cache could score a pod on a view without the previous pods.
    EXTENDER_CACHE_TTL: '0ms',
  };
  for (const [plugin, weight] of Object.entries(profile.weights ?? {})) env[weightVariable(plugin)] = String(weight);
  const gpu = profile.gpuScore ?? {};
  if (gpu.fitWeight !== undefined) env.EXTENDER_GPU_FIT_WEIGHT = String(gpu.fitWeight);
  if (gpu.utilizationWeight !== undefined) env.EXTENDER_GPU_UTILIZATION_WEIGHT = String(gpu.utilizationWeight);
  if (gpu.unknownUtilizationScore !== undefined) env.EXTENDER_UNKNOWN_UTILIZATION_SCORE = String(gpu.unknownUtilizationScore);
  const margin = profile.capacityBlockEnd?.drainMarginMs;
  if (margin !== undefined) env.EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN = `${margin}ms`;
  return env;
}

type Outcome = { readonly bound: string } | { readonly unschedulable: string };

function outcomeOf(pod: V1Pod): Outcome | undefined {
  if (pod.spec?.nodeName) return { bound: pod.spec.nodeName };
  const message = unschedulableMessage(pod);
  return message === undefined ? undefined : { unschedulable: message };
}

const keyOf = (pod: V1Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/** The gpu-scheduler's pods as the API reports them, kept current by a watch, with the order pods were first seen bound. */
class PodWatch {
  readonly latest = new Map<string, V1Pod>();
  readonly bindOrder: string[] = [];
  private controller: AbortController | undefined;

  async start(kubeConfig: KubeConfig): Promise<void> {
    this.controller = await new Watch(kubeConfig).watch(
      '/api/v1/pods',
      { fieldSelector: `spec.schedulerName=${GPU_SCHEDULER}` },
      (type: string, pod: V1Pod) => {
        const key = keyOf(pod);
        if (type === 'DELETED') this.latest.delete(key);
        else this.latest.set(key, pod);
        if (pod.spec?.nodeName && !this.bindOrder.includes(key)) this.bindOrder.push(key);
      },
      () => undefined,
    );
  }

  stop(): void {
    this.controller?.abort();
  }
}

/** The API server's own words for a refused request (its Status message), else the error's. */
function apiMessage(error: unknown): string {
  const body = isRecord(error) && typeof error.body === 'string' ? error.body : undefined;
  if (body !== undefined) {
    try {
      const status: unknown = JSON.parse(body);
      if (isRecord(status) && typeof status.message === 'string') return status.message;
    } catch {
      // Not a Status: fall through to the error's message.
    }
  }
  return errorMessage(error);
}

async function createAll(items: readonly unknown[], concurrency: number, create: (item: unknown) => Promise<unknown>, what: string): Promise<void> {
  const results = await mapWithConcurrency([...items], concurrency, create);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    const first = failed[0] as { error: unknown };
    throw new Error(`${failed.length} of ${items.length} ${what} could not be created; first: ${apiMessage(first.error)}`);
  }
}

function attribute(message: string): { filtered: FilterCount[]; extender: ExtenderRejections[] } {
  const filtered: FilterCount[] = [];
  const extender: ExtenderRejections[] = [];
  for (const { nodes, text } of failedSchedulingReasons(message)) {
    if (reasonSource(text) === 'extender') extender.push({ code: rejectionCode(text) ?? 'Other', nodes, example: text });
    else filtered.push({ plugin: pluginOfReason(text), reason: text, nodes });
  }
  return { filtered, extender };
}

/**
 * Runs the dump through the real components on `controlPlane`, whose API
 * server must have no nodes yet. Pending pods are created one at a time in
 * queue order, each once the one before is bound or found unschedulable, so
 * every cycle sees the earlier placements as the fast path's does.
 */
export async function simulateExact(
  nodes: readonly unknown[],
  pods: readonly unknown[],
  profileOptions: ProfileOptions,
  controlPlane: ControlPlaneInfo,
  options: ExactOptions = {},
): Promise<SimulationResult> {
  const log = options.log ?? (() => undefined);
  const plan = planDump(nodes, pods);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane.adminKubeconfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const scheduling = kubeConfig.makeApiClient(SchedulingV1Api);
  if ((await core.listNode({ limit: 1 })).items.length > 0) throw new Error('the API server already has nodes: --exact needs an empty cluster');
  // A gpu-scheduler pod already there would be placed among the dump's.
  if ((await core.listPodForAllNamespaces({ fieldSelector: `spec.schedulerName=${GPU_SCHEDULER}`, limit: 1 })).items.length > 0) {
    throw new Error(`the API server already has ${GPU_SCHEDULER} pods: --exact needs an empty cluster`);
  }

  const nodeNames = new Set(nodes.map((n) => nodeToCreate(n).metadata as { name: string }).map((m) => m.name));
  const bound = plan.bound.filter((p) => nodeNames.has(p.nodeName as string));
  const everyPod = [...bound, ...plan.pending];
  const namespaces = [...new Set(everyPod.map((p) => p.namespace))].filter((ns) => !BUILT_IN_NAMESPACES.has(ns));
  log(`[exact] loading ${nodes.length} nodes, ${bound.length} bound pods, ${namespaces.length} namespaces`);
  await createAll(namespaces, 8, (name) => core.createNamespace({ body: { metadata: { name: name as string } } }), 'namespaces');
  await createAll(priorityClassesFor(everyPod), 8, (body) => scheduling.createPriorityClass({ body: body as never }), 'priority classes');
  await createAll(nodes, 24, async (raw) => {
    const created = await core.createNode({ body: nodeToCreate(raw) as never });
    await core.patchNodeStatus({ name: created.metadata?.name ?? '', body: nodeStatus(raw) }, MERGE_PATCH_OPTIONS);
  }, 'nodes');
  await createAll(bound, 24, (pod) => core.createNamespacedPod({ namespace: (pod as SchedPod).namespace, body: podToCreate(pod as SchedPod) as never }), 'bound pods');

  const watch = new PodWatch();
  /**
   * Each unschedulable pod's FailedScheduling message at its turn, before the
   * next pod is created: the cluster the fast path judges it on. kube-scheduler
   * may try it again later (an event it could not rule out arrived during its
   * cycle, or a bind that may help it) and then reports a fuller cluster, where
   * a node can fail an earlier filter instead (Insufficient cpu before pod
   * anti-affinity).
   */
  const atItsTurn = new Map<string, string>();
  let extender: RecordingExtender | undefined;
  let scheduler: ManagedProcess | undefined;
  let settings: ExtenderSettings | undefined;
  try {
    await watch.start(kubeConfig);
    extender = await startRecordingExtender(controlPlane.lambdaKubeconfigs.extender, extenderEnvironment(profileOptions));
    settings = { ...deployedExtenderSettings(extender.adapter.url), ...(options.extenderWeight === undefined ? {} : { weight: options.extenderWeight }) };
    scheduler = await startKubeScheduler({
      binary: controlPlane.kubeSchedulerBinary,
      kubeconfig: controlPlane.schedulerKubeconfig,
      workDir: controlPlane.logDir,
      name: `simulate-exact-${process.pid}-${Date.now()}`,
      profiles: [GPU_SCHEDULER],
      extender: settings,
      verbosity: 1,
    });
    log(`[exact] kube-scheduler and the extender ready; placing ${plan.pending.length} pods one at a time`);
    const timeoutMs = options.podTimeoutMs ?? 60_000;
    for (const pod of plan.pending) {
      await core.createNamespacedPod({ namespace: pod.namespace, body: podToCreate(pod) as never });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = watch.latest.get(pod.key);
        const outcome = current === undefined ? undefined : outcomeOf(current);
        if (outcome !== undefined) {
          if ('unschedulable' in outcome) atItsTurn.set(pod.key, outcome.unschedulable);
          break;
        }
        scheduler.assertRunning();
        if (Date.now() > deadline) throw new Error(`${pod.key}: neither bound nor found unschedulable within ${timeoutMs} ms\n${scheduler.logTail(20)}`);
        await sleep(5);
      }
    }
    // A pod found unschedulable is requeued when a bind may help it (pod affinity, spread); give those retries time to land.
    if (atItsTurn.size > 0) await settle(watch);
  } finally {
    watch.stop();
    await scheduler?.stop();
    await extender?.stop();
  }
  return readBack(core, plan, watch, atItsTurn, { extender, settings }, options.explain === true);
}

/** Waits until no bind has happened for two seconds (retries back off one second first). */
async function settle(watch: PodWatch): Promise<void> {
  let seen = watch.bindOrder.length;
  let quietSince = Date.now();
  while (Date.now() - quietSince < 2_000) {
    await sleep(100);
    if (watch.bindOrder.length !== seen) {
      seen = watch.bindOrder.length;
      quietSince = Date.now();
    }
  }
}

function rankingOf(extender: RecordingExtender | undefined, key: string): ExtenderRanking | undefined {
  const decisions = extender?.decisions.filter((d) => d.verb === 'prioritize' && d.summary.pod === key) ?? [];
  return decisions.at(-1)?.summary.ranking;
}

async function readBack(
  core: CoreV1Api,
  plan: ReturnType<typeof planDump>,
  watch: PodWatch,
  atItsTurn: ReadonlyMap<string, string>,
  { extender, settings }: { extender: RecordingExtender | undefined; settings: ExtenderSettings | undefined },
  explain: boolean,
): Promise<SimulationResult> {
  const podsNow = (await core.listPodForAllNamespaces()).items;
  const nodesNow = (await core.listNode()).items;
  const byKey = new Map(podsNow.map((p) => [keyOf(p), p]));
  const placed: PlacedPod[] = [];
  for (const key of watch.bindOrder) {
    const pod = byKey.get(key);
    if (!pod?.spec?.nodeName || !plan.pending.some((p) => p.key === key)) continue;
    const ranking = explain ? rankingOf(extender, key) : undefined;
    placed.push({ pod: key, node: pod.spec.nodeName, score: undefined, devices: [], tiedWith: [], ...(ranking === undefined ? {} : { extenderRanking: ranking }) });
  }
  const unschedulable: UnschedulablePod[] = [];
  for (const pending of plan.pending) {
    const pod = byKey.get(pending.key);
    if (pod === undefined || pod.spec?.nodeName) continue;
    const last = unschedulableMessage(pod);
    const message = atItsTurn.get(pending.key) ?? last ?? 'not tried yet';
    const { filtered, extender: byExtender } = attribute(message);
    const lastMessage = last !== undefined && last !== message ? { lastMessage: last } : {};
    unschedulable.push({ pod: pending.key, message, ...lastMessage, filteredByScheduler: filtered, rejectedByExtender: byExtender });
  }
  const snapshot = snapshotFromKubernetes(nodesNow, podsNow);
  const slowest = Math.max(0, ...(extender?.responses ?? []).map((r) => r.handlerMs));
  const warnings = (extender?.failures ?? []).map((f) => `the extender's ${f.verb ?? 'call'} failed (${f.status}): ${f.message}`);
  if (warnings.length > 0) warnings.push(`its slowest call took ${Math.round(slowest)} ms (kube-scheduler waits ${settings?.httpTimeoutSeconds ?? '?'} s)`);
  return {
    path: 'exact',
    placed,
    unschedulable,
    alreadyBound: plan.bound.length,
    skipped: plan.skipped,
    nodes: nodesUsage(snapshot),
    gpus: clusterOutcome(snapshot),
    notModelled: EXACT_NOT_MODELLED,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
