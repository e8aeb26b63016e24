// The extender (behind the ALB adapter, the deployed 5 s cache TTL) and the
// real gpu-scheduler while the Kubernetes API misbehaves. The extender reaches
// the real kube-apiserver through local/proxies/kube-api-proxy.ts, which injects
// what a healthy API server does not produce on cue (slow answers, 410 on
// every watch, a watch cut mid-event); the 403 is the real one, the
// extender's ClusterRoleBinding deleted and restored.
//
// Each case: two A10G nodes; just before the fault, `wrong` is relabelled T4,
// so fresh data rejects it for an A10G pod while the extender's snapshot still
// calls it A10G. A pod created during the fault must never bind to `wrong`;
// while degraded the extender's answers are errors (ExtenderErrors on the
// dashboard); once the fault ends the pod binds to `right` within the stated
// time.
import { readFile, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RbacAuthorizationV1Api, type V1ClusterRoleBinding } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { FaultPlan } from '../../local/proxies/fault-plan';
import { startCountingProxy, type CountingProxy, type KubeCall } from '../../local/proxies/kube-api-proxy';
import type { ManagedProcess } from '../../local/common/managed-process';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { sleep, waitFor } from '../../local/common/wait';
import { A10G_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;
const rbac = harness.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
const MODEL_LABEL = 'gpu.nvidia.com/model';
/** The deployed EXTENDER_CACHE_TTL: a snapshot older than this is refreshed before it is used. */
const TTL_MS = 5_000;
/** How long after a fault ends the pod must be bound: kube-scheduler's retry backoff (at most 10 s) plus one refresh. */
const RECOVERY_BOUND_MS = 15_000;

let proxy: CountingProxy | undefined;
let plan: FaultPlan<KubeCall> | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let configDir = '';
const nodes: GpuNode[] = [];

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('kube-api-faults');
  const { controlPlane } = harness.info;
  proxy = await startCountingProxy({
    target: controlPlane.apiServerUrl,
    caPem: await readFile(controlPlane.caFile, 'utf8'),
    certPem: await readFile(controlPlane.caFile, 'utf8'),
    keyPem: await readFile(join(dirname(controlPlane.caFile), 'apiserver.key'), 'utf8'),
    faults: (call, attempt) => plan?.(call, attempt),
  });
  // The extender's own identity, through the proxy.
  configDir = await mkdtemp(join(tmpdir(), 'kube-api-faults-'));
  const kubeconfig = join(configDir, 'kubeconfig');
  const real = await readFile(controlPlane.lambdaKubeconfigs.extender, 'utf8');
  await writeFile(kubeconfig, real.replace(/server: .*/g, `server: ${proxy.url}`));
  extender = await startRecordingExtender(kubeconfig, { EXTENDER_CACHE_TTL: `${TTL_MS}ms` });
  for (const name of ['a10g-1', 'a10g-2']) nodes.push(await createGpuNode(harness.nodeClients, { instanceType: A10G_NODE_TYPE, name, seedLabels: true }));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(async () => {
  plan = undefined;
  await harness.tearDown(namespace, scheduler, extender, proxy);
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

let pods = 0;

interface FaultRun {
  /** Where the pod went. */
  readonly boundTo: string;
  /** From the end of the fault to the pod's binding. */
  readonly recoveryMs: number;
  /** Extender answers that were errors while the fault lasted. */
  readonly errorsWhileDegraded: number;
  /** Extender answers while the fault lasted. */
  readonly answersWhileDegraded: number;
  /** The pod was not bound while the fault lasted. */
  readonly boundDuringFault: string | undefined;
}

/**
 * Relabels one node T4 behind the extender's back (its snapshot is warm and
 * still calls it A10G), starts the fault, creates an A10G pod, keeps the fault
 * for `faultMs`, ends it (`end`), and waits for the pod to bind.
 */
async function underFault(start: () => Promise<void> | void, end: () => Promise<void> | void, faultMs: number): Promise<FaultRun & { right: string; wrong: string }> {
  if (!extender) throw new Error('setup did not finish');
  const [first, second] = nodes;
  if (!first || !second) throw new Error('setup created no nodes');
  // Alternate which node goes wrong, and put the previous one back.
  const wrong = pods % 2 === 0 ? first.name : second.name;
  const right = wrong === first.name ? second.name : first.name;
  await core.patchNode({ name: right, body: { metadata: { labels: { [MODEL_LABEL]: 'A10G' } } } }, MERGE_PATCH_OPTIONS);
  // A warm snapshot that knows `right` as A10G, then one call so that it is the snapshot being served.
  await warmUp();
  await core.patchNode({ name: wrong, body: { metadata: { labels: { [MODEL_LABEL]: 'T4' } } } }, MERGE_PATCH_OPTIONS);
  // Past the TTL: the next request must refresh, and meets the fault.
  await sleep(TTL_MS + 500);
  await start();
  const errorsBefore = extender.failures.length;
  const answersBefore = extender.responses.length;
  const name = `faulted-${pods++}`;
  await core.createNamespacedPod({ namespace, body: a10gPod(name) });
  await sleep(faultMs);
  const boundDuringFault = (await core.readNamespacedPod({ namespace, name })).spec?.nodeName || undefined;
  const errorsWhileDegraded = extender.failures.length - errorsBefore;
  const answersWhileDegraded = extender.responses.length - answersBefore;
  await end();
  const endedAt = Date.now();
  const boundTo = await waitFor(`${name} bound`, async () => (await core.readNamespacedPod({ namespace, name })).spec?.nodeName || undefined, { timeoutMs: 60_000 });
  const recoveryMs = boundDuringFault === undefined ? Date.now() - endedAt : 0;
  return { boundTo, recoveryMs, errorsWhileDegraded, answersWhileDegraded, boundDuringFault, right, wrong };
}

/** One pod scheduled through the extender, leaving its snapshot fresh; the pod is deleted again. */
async function warmUp(): Promise<void> {
  const name = `warm-${pods++}`;
  await core.createNamespacedPod({ namespace, body: a10gPod(name) });
  await waitFor(`${name} bound`, async () => (await core.readNamespacedPod({ namespace, name })).spec?.nodeName || undefined, { timeoutMs: 60_000 });
  await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });
}

function report(label: string, run: FaultRun): void {
  console.log(
    `${label}: ${run.errorsWhileDegraded}/${run.answersWhileDegraded} extender answers were errors during the fault; ` +
      `bound to ${run.boundTo}${run.boundDuringFault ? ' during the fault' : ` ${(run.recoveryMs / 1000).toFixed(1)} s after it ended`}`,
  );
}

describe('the extender while the Kubernetes API fails', () => {
  it('403 (its ClusterRoleBinding deleted, then restored): 503s, the pod waits, then binds to the right node', async () => {
    const bindingName = 'gpu-scheduling-extender';
    let saved: V1ClusterRoleBinding | undefined;
    const run = await underFault(
      async () => {
        saved = await rbac.readClusterRoleBinding({ name: bindingName });
        await rbac.deleteClusterRoleBinding({ name: bindingName });
      },
      async () => {
        if (!saved) throw new Error('no binding saved');
        const { metadata, roleRef, subjects } = saved;
        await rbac.createClusterRoleBinding({ body: { metadata: { name: metadata?.name ?? bindingName, labels: metadata?.labels ?? {} }, roleRef, subjects: subjects ?? [] } });
      },
      8_000,
    );
    report('403', run);
    expect(run.boundDuringFault).toBeUndefined();
    expect(run.errorsWhileDegraded).toBeGreaterThan(0);
    expect(extender?.failures.at(-1)?.message).toMatch(/cluster cache unavailable: .*403/);
    expect(run.boundTo).toBe(run.right);
    expect(run.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it('1 s per API call: every answer is fresh, slower, and no error', async () => {
    const run = await underFault(
      () => {
        plan = () => ({ kind: 'delay', ms: 1_000 });
      },
      () => {
        plan = undefined;
      },
      6_000,
    );
    report('1 s per call', run);
    expect(run.boundTo).toBe(run.right);
    expect(run.errorsWhileDegraded).toBe(0);
    expect(run.boundDuringFault).toBe(run.right);
    // The refresh waited for the slow calls: the handler's time shows it (ExtenderLatency on the dashboard).
    const slowest = Math.max(...(extender?.responses.slice(-5).map((r) => r.handlerMs) ?? [0]));
    expect(slowest).toBeGreaterThan(1_000);
  });

  it('410 Expired on every watch: each refresh lists afresh, the pod binds to the right node during the fault', async () => {
    const relists = proxy?.counts().calls['LIST /api/v1/nodes'] ?? 0;
    const run = await underFault(
      () => {
        plan = ({ key }) => (key.startsWith('WATCH ') ? { kind: 'status', status: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' } : undefined);
      },
      () => {
        plan = undefined;
      },
      6_000,
    );
    report('410 on every watch', run);
    expect(run.boundDuringFault).toBe(run.right);
    expect(run.errorsWhileDegraded).toBe(0);
    expect((proxy?.counts().calls['LIST /api/v1/nodes'] ?? 0) - relists).toBeGreaterThan(0);
  });

  it('the pods watch cut mid-event: the refresh fails as a whole (503s), then the pod binds to the right node', async () => {
    const run = await underFault(
      async () => {
        // Something for the pods watch to carry: a pod bound to each node, so the cut falls inside an event.
        for (const node of nodes) await core.createNamespacedPod({ namespace, body: { metadata: { name: `churn-${pods++}` }, spec: { nodeName: node.name, containers: [{ name: 'c', image: 'x' }] } } });
        plan = ({ key }) => (key === 'WATCH /api/v1/pods' ? { kind: 'cut', afterBytes: 600 } : undefined);
      },
      () => {
        plan = undefined;
      },
      8_000,
    );
    report('pods watch cut mid-event', run);
    // The cut stream is an error (never a short, clean end), so the whole refresh fails and nothing of it is applied.
    expect(run.boundDuringFault).toBeUndefined();
    expect(run.errorsWhileDegraded).toBeGreaterThan(0);
    expect(extender?.failures.at(-1)?.message).toMatch(/cluster cache unavailable: GET \/api\/v1\/pods\?watch=1.*(aborted|ECONNRESET|socket hang up|not JSON)/);
    expect(run.boundTo).toBe(run.right);
    expect(run.recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });
});
