// A GPU node that vanishes (a Spot interruption, a consolidation, an operator
// deleting it) with its pods still bound: the labeler, the reconciler and the
// extender, each as deployed (Lambda bundles in their own processes, their
// RBAC identities, moto for EC2 and CloudWatch), see it go without an error.
// The reconciler's next run counts only the node left (its pods on the dead
// node are listed but belong to no node); the labeler ignores the terminate
// event, a late `running` event and a running instance that ends while it
// waits for its node (it stops waiting); the extender's cache drops the node
// and the next GPU pod binds to the one left. No error metric, no ERROR log.
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import type { V1Pod } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { LAMBDA_ENTRIES } from '../../cdk/lib/functions/lambda-entries';
import { KARPENTER_DO_NOT_DISRUPT_ANNOTATION } from '../../lambdas/reconciler/do-not-disrupt';
import { POD_ANNOTATION } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { LOCAL_AWS_REGION } from '../../local/aws/moto';
import { markPodRunning, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { ec2StateChangeEvent, LOCAL_ACCOUNT_ID } from '../../local/start/event-bridge';
import { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';
import { emfValues } from './emf-records';
import { labelerEnv, launchInstance } from './labeler-support';
import { OPT_IN, PAUSE_IMAGE, reconcilerEnv, startReconcilerLambda, reconcileOnce } from './reconciler-fixtures';

const h = e2eHarness();
const { core } = h;
const logDir = mkdtempSync(join(tmpdir(), 'vanished-gpu-node-'));
const records: Record<string, unknown>[] = [];
let namespace = '';
let nodeLabel = '';
const nodes: GpuNode[] = [];
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let reconciler: LocalLambda | undefined;
let labeler: LocalLambda | undefined;
let ec2Proxy: AwsFaultProxy | undefined;
const describeCalls = (): number => (ec2Proxy?.calls ?? []).filter((call) => call.action === 'DescribeInstances').length;

const recordsOf = (fn: string, from = 0): Record<string, unknown>[] => records.slice(from).filter((r) => r.functionName === fn);
const errorLogs = (): Record<string, unknown>[] => records.filter((r) => r.level === 'ERROR');

function gpuPod(name: string, nodeName?: string, annotations: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels: { ...OPT_IN, app: name }, annotations },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      ...(nodeName ? { nodeSelector: { 'kubernetes.io/hostname': nodeName } } : {}),
      containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

/** Creates the pod for the GPU scheduler, waits for it to bind, marks it Running; its node. */
async function runPod(pod: V1Pod): Promise<string> {
  await core.createNamespacedPod({ namespace, body: pod });
  const name = pod.metadata?.name ?? '';
  const node = await waitForPodScheduled(core, { namespace, name }, 60_000);
  await markPodRunning(core, { namespace, name }, '10.4.0.10', new Date(Date.now() - 3_600_000));
  return node;
}

/** One reconciler run: its records once it logged its end. */
const reconcile = (id: string) => reconcileOnce(reconciler, () => recordsOf('reconciler'), id);

beforeAll(async () => {
  namespace = await h.createNamespace('vanished-node');
  nodeLabel = `vanished-e2e=${namespace}`;
  for (const suffix of ['a', 'b']) {
    nodes.push(await createGpuNode(h.nodeClients, { instanceType: 'g5.12xlarge', name: `${namespace}-${suffix}`, seedLabels: true, labels: { 'vanished-e2e': namespace } }));
  }
  extender = await startRecordingExtender(h.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await h.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  reconciler = await startReconcilerLambda(h.info, {
    functionName: 'vanished-reconciler',
    environment: reconcilerEnv(h.info, namespace, { NODE_SELECTOR: nodeLabel }),
    logDir,
    onLogRecord: (record) => records.push({ ...record, functionName: 'reconciler' }),
  });
  ec2Proxy = await startAwsFaultProxy({ target: h.info.motoUrl });
  labeler = await LocalLambda.start({
    functionName: 'vanished-labeler',
    entry: LAMBDA_ENTRIES.labeler,
    // A long registration wait, so stopping early for an ended instance is what the test sees.
    // EC2 through a proxy that only counts (no fault): when the labeler has described an instance is what a case waits on.
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC', ...labelerEnv(h, { NODE_REGISTRATION_WAIT: '3m' }), AWS_ENDPOINT_URL: ec2Proxy.url },
    kubeconfig: h.info.controlPlane.lambdaKubeconfigs.labeler,
    timeoutMs: APP_CONFIG_DEFAULTS.labeler.timeoutSeconds * 1000,
    memoryMiB: APP_CONFIG_DEFAULTS.labeler.memorySizeMiB,
    region: LOCAL_AWS_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    logFile: join(logDir, 'labeler.log'),
    onLogRecord: (record) => records.push({ ...record, functionName: 'labeler' }),
  });
}, 120_000);

afterAll(async () => {
  await reconciler?.stop();
  await labeler?.stop();
  await ec2Proxy?.stop();
  for (const node of nodes) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
  await h.tearDown(namespace, scheduler, extender);
  rmSync(logDir, { recursive: true, force: true });
}, 120_000);

describe('a GPU node that vanishes with its pods', () => {
  it('raises no error in the reconciler, the labeler or the extender, and the counts follow', async () => {
    const [doomed, survivor] = nodes;
    if (!doomed || !survivor) throw new Error('setup failed');
    expect(await runPod(gpuPod('web-a', doomed.name))).toBe(doomed.name);
    expect(await runPod(gpuPod('trainer-a', doomed.name, { [POD_ANNOTATION.doNotDisrupt]: 'true' }))).toBe(doomed.name);
    expect(await runPod(gpuPod('web-b', survivor.name))).toBe(survivor.name);

    const before = await reconcile('before');
    expect(emfValues(before, 'GpusAllocatable').map((v) => v.value)).toEqual([8]);
    expect(emfValues(before, 'GpusAllocated').map((v) => v.value)).toEqual([3]);
    expect(emfValues(before, 'GpuNodes').map((v) => v.value)).toEqual([2]);
    expect((await core.readNamespacedPod({ namespace, name: 'trainer-a' })).metadata?.annotations?.[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBe('true');

    // The Spot interruption: the instance goes, its Node is deleted, its pods stay bound to it until pod GC gets to them.
    await deleteGpuNode(h.nodeClients, doomed);
    const podsLeft = (await core.listNamespacedPod({ namespace })).items.filter((p) => p.spec?.nodeName === doomed.name);
    expect(podsLeft.length).toBe(2);

    const after = await reconcile('after');
    expect(emfValues(after, 'GpusAllocatable').map((v) => v.value)).toEqual([4]);
    expect(emfValues(after, 'GpusAllocated').map((v) => v.value)).toEqual([1]);
    expect(emfValues(after, 'GpuNodes').map((v) => v.value)).toEqual([1]);
    expect(emfValues(after, 'ReconcilerErrors')).toEqual([]);

    // The labeler: the terminate event, then a late running event for the same instance.
    const terminated = await labeler?.invoke(ec2StateChangeEvent(doomed.instanceId, 'terminated', LOCAL_AWS_REGION));
    expect(terminated).toMatchObject({ result: 'ignored', reason: 'instanceNotRunning' });
    const late = await labeler?.invoke(ec2StateChangeEvent(doomed.instanceId, 'running', LOCAL_AWS_REGION));
    // Told apart by its first DescribeInstances, without waiting for a node: the detail is that answer's, not the wait's.
    expect(late).toMatchObject({ result: 'ignored', reason: 'instanceTerminated', detail: `instance ${doomed.instanceId} is terminated` });
    // An instance interrupted before its node joined: the wait (3 min here) ends at the next ended-check (every 30 s).
    const early = await launchInstance(h.ec2, 'g5.xlarge');
    const described = describeCalls();
    const waitStart = Date.now();
    const waiting = labeler?.invoke(ec2StateChangeEvent(early.instanceId, 'running', LOCAL_AWS_REGION));
    // Terminated once the labeler has found it running (its DescribeInstances), so it is waiting for the node.
    await waitFor('the labeler to describe the new instance', () => (describeCalls() > described ? true : undefined), { intervalMs: 50 });
    await h.ec2.send(new TerminateInstancesCommand({ InstanceIds: [early.instanceId] }));
    expect(await waiting).toMatchObject({ result: 'ignored', reason: 'instanceTerminated', detail: expect.stringMatching(/it ended before its node registered$/) as unknown });
    // Generous: it guards against a wait that ignores the ended instance and runs to the 3 min deadline.
    expect(Date.now() - waitStart).toBeLessThan(150_000);
    const scheduled = await labeler?.invoke({ version: '0', id: 'vanished-reconcile', 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), region: LOCAL_AWS_REGION, resources: [], detail: {} });
    expect(scheduled).toMatchObject({ kind: 'reconcile', failed: 0 });

    // The extender: its cache drops the node within a refresh, and the next GPU pod binds to the one left.
    expect(await runPod(gpuPod('web-c'))).toBe(survivor.name);
    expect(extender?.failures).toEqual([]);
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);

    const labelerErrors = recordsOf('labeler').flatMap((r) => ('LabelerErrors' in r ? [r.LabelerErrors] : []));
    expect(labelerErrors).toEqual([]);
    expect(errorLogs()).toEqual([]);
    // Above the generous bound on the labeler's wait, and what the rest takes on a busy machine.
  }, 420_000);
});
