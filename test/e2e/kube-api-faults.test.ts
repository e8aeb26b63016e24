// The extender (behind the ALB adapter, the deployed 5 s cache TTL) and the
// real gpu-scheduler while the Kubernetes API misbehaves. The extender reaches
// the real kube-apiserver through local/proxies/kube-api-proxy.ts, which injects
// what a healthy API server does not produce on cue (slow answers, 410 on
// every watch, a watch cut mid-event); the 403 is the real one, the
// extender's ClusterRoleBinding deleted and restored.
//
// Each case: four A10G nodes; once the extender's snapshot knows them all as
// A10G, three are relabelled T4 (the `wrong` ones), so fresh data rejects them
// for an A10G pod while the snapshot still calls them A10G. The fault starts
// once that snapshot is past its TTL, so the pod's first /filter refreshes it
// and meets the fault. The fault lasts until what it is meant to cause has
// been seen (errors answered, or the pod bound), never for a fixed time. The
// pod must bind to `right`, and the extender's /filter reply that placed it
// must have rejected each wrong node as a T4: a stale snapshot passes the
// first check one time in four, never the second. Recovery is what the
// extender decided once the fault ended (fresh data, the right node), not a
// number of seconds.
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
import { waitFor } from '../../local/common/wait';
import { A10G_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;
const rbac = harness.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
const MODEL_LABEL = 'gpu.nvidia.com/model';
/** The deployed EXTENDER_CACHE_TTL: a snapshot older than this is refreshed before it is used. */
const TTL_MS = 5_000;
/** A generous bound on the wait for a pod after its fault: kube-scheduler retries an extender error after its backoff (at most 10 s). */
const BIND_TIMEOUT_MS = 90_000;
/** How the extender rejects a wrong node for an A10G pod. */
const WRONG_NODE_REASON = /pod wants A10G, node has T4/;

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
  for (const name of ['a10g-1', 'a10g-2', 'a10g-3', 'a10g-4']) nodes.push(await createGpuNode(harness.nodeClients, { instanceType: A10G_NODE_TYPE, name, seedLabels: true }));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
});

afterAll(async () => {
  plan = undefined;
  await harness.tearDown(namespace, scheduler, extender, proxy);
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

let pods = 0;

interface FaultRun {
  readonly pod: string;
  /** The node every wrong one's data says is the only A10G. */
  readonly right: string;
  readonly wrong: readonly string[];
  /** Where the pod went. */
  readonly boundTo: string;
  /** Extender answers that were errors while the fault lasted. */
  readonly errorsWhileDegraded: number;
  /** Extender answers while the fault lasted. */
  readonly answersWhileDegraded: number;
  /** The pod was bound while the fault lasted: to this node. */
  readonly boundDuringFault: string | undefined;
}

/**
 * Makes three of the four nodes T4 behind the extender's back (its snapshot
 * still calls them A10G), waits until that snapshot is past its TTL, starts
 * the fault, creates an A10G pod, keeps the fault on until `until` holds for
 * the run so far (polled), ends it (`end`), and waits for the pod to bind.
 */
async function underFault(
  start: () => Promise<void> | void,
  end: () => Promise<void> | void,
  until: { describe: string; holds: (run: { pod: string; errors: number; boundTo: string | undefined }) => boolean },
): Promise<FaultRun> {
  if (!extender) throw new Error('setup did not finish');
  const recording = extender;
  // A different right node each case; every node A10G again first, and a snapshot that knows it.
  const right = nodes[pods % nodes.length]?.name ?? '';
  const wrong = nodes.map((n) => n.name).filter((name) => name !== right);
  for (const node of nodes) await core.patchNode({ name: node.name, body: { metadata: { labels: { [MODEL_LABEL]: 'A10G' } } } }, MERGE_PATCH_OPTIONS);
  await recording.waitForSnapshot('know every node as A10G', (snapshot) => nodes.every((n) => snapshot.getNode(n.name)?.gpuModel === 'A10G'));
  for (const name of wrong) await core.patchNode({ name, body: { metadata: { labels: { [MODEL_LABEL]: 'T4' } } } }, MERGE_PATCH_OPTIONS);
  // Past the TTL (not refreshed since): the pod's first request must refresh, and meets the fault.
  await recording.waitForStaleSnapshot(TTL_MS);
  await start();
  const errorsBefore = recording.failures.length;
  const answersBefore = recording.responses.length;
  const pod = `faulted-${pods++}`;
  const boundNow = async (): Promise<string | undefined> => (await core.readNamespacedPod({ namespace, name: pod })).spec?.nodeName || undefined;
  await core.createNamespacedPod({ namespace, body: a10gPod(pod) });
  const boundDuringFault = await waitFor(
    until.describe,
    async () => {
      const boundTo = await boundNow();
      return until.holds({ pod, errors: recording.failures.length - errorsBefore, boundTo }) ? { boundTo } : undefined;
    },
    { timeoutMs: BIND_TIMEOUT_MS, intervalMs: 100 },
  ).then((seen) => seen.boundTo);
  const errorsWhileDegraded = recording.failures.length - errorsBefore;
  const answersWhileDegraded = recording.responses.length - answersBefore;
  await end();
  const boundTo = await waitFor(`${pod} bound`, boundNow, { timeoutMs: BIND_TIMEOUT_MS });
  return { pod, right, wrong, boundTo, errorsWhileDegraded, answersWhileDegraded, boundDuringFault };
}

/**
 * Every successful /filter reply for the pod (the extender's decisions once
 * its data could be had) kept only the right node and rejected every wrong
 * one as a T4: no decision was made on the stale snapshot. And the pod went
 * where they said.
 */
function expectPlacedByFreshData(run: FaultRun): void {
  const replies = extender?.filterRepliesOf(namespace, run.pod) ?? [];
  expect(replies.length).toBeGreaterThan(0);
  for (const reply of replies) {
    expect(reply.kept, JSON.stringify(reply)).toEqual([run.right]);
    expect(Object.keys(reply.failed).sort()).toEqual([...run.wrong].sort());
    for (const name of run.wrong) expect(reply.failed[name], name).toMatch(WRONG_NODE_REASON);
  }
  expect(run.boundTo).toBe(run.right);
}

function report(label: string, run: FaultRun): void {
  console.log(
    `${label}: ${run.errorsWhileDegraded}/${run.answersWhileDegraded} extender answers were errors during the fault; ` +
      `bound to ${run.boundTo}${run.boundDuringFault ? ' during the fault' : ' after it ended'}`,
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
      // Two refused refreshes: the pod's first attempt and a retry after kube-scheduler's backoff.
      { describe: 'two 503s for the pod while the binding is gone', holds: ({ errors }) => errors >= 2 },
    );
    report('403', run);
    expect(run.boundDuringFault).toBeUndefined();
    expect(extender?.failures.at(-1)?.message).toMatch(/cluster cache unavailable: .*403/);
    expectPlacedByFreshData(run);
  });

  it('1 s per API call: every answer is fresh, slower, and no error', async () => {
    const run = await underFault(
      () => {
        plan = () => ({ kind: 'delay', ms: 1_000 });
      },
      () => {
        plan = undefined;
      },
      { describe: 'the pod bound while every call is slow', holds: ({ boundTo }) => boundTo !== undefined },
    );
    report('1 s per call', run);
    expect(run.errorsWhileDegraded).toBe(0);
    expect(run.boundDuringFault).toBe(run.right);
    expectPlacedByFreshData(run);
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
      { describe: 'the pod bound while every watch answers 410', holds: ({ boundTo }) => boundTo !== undefined },
    );
    report('410 on every watch', run);
    expect(run.boundDuringFault).toBe(run.right);
    expect(run.errorsWhileDegraded).toBe(0);
    expectPlacedByFreshData(run);
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
      { describe: 'two 503s for the pod while its watch is cut', holds: ({ errors }) => errors >= 2 },
    );
    report('pods watch cut mid-event', run);
    // The cut stream is an error (never a short, clean end), so the whole refresh fails and nothing of it is applied.
    expect(run.boundDuringFault).toBeUndefined();
    expect(extender?.failures.at(-1)?.message).toMatch(/cluster cache unavailable: GET \/api\/v1\/pods\?watch=1.*(aborted|ECONNRESET|socket hang up|not JSON)/);
    expectPlacedByFreshData(run);
  });
});
