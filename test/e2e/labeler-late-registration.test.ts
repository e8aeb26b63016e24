// Nodes that join after their instance is `running`, through the path AWS
// takes: the EC2 event delivered asynchronously (Lambda's retry policy from
// the default config) to the real labeler module in a Lambda worker, which
// talks to moto and the real kube-apiserver as the labeler's RBAC identity.
// "No Lambda error, no DLQ message" is the delivery succeeding on its first
// attempt; the metrics are the EMF lines the function wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { LAMBDA_ENTRIES } from '../../cdk/lib/functions/lambda-entries';
import { ENDED_CHECK_INTERVAL_MS } from '../../lambdas/labeler/node-registration';
import { STARTUP_TAINT } from '../../lambdas/labeler/startup-taint';
import { e2eHarness } from './support/e2e-context';
import { deleteGpuNode } from '../../local/nodes/gpu-nodes';
import { LOCAL_AWS_REGION } from '../../local/aws/moto';
import { LOCAL_ACCOUNT_ID, LocalEventBridge, ec2StateChangeEvent, type Delivery, type RetryPolicy } from '../../local/start/event-bridge';
import { LocalLambda } from '../../local/start/local-lambda';
import { gpuLabelsOf, labelerEnv, launchInstance, registerNode } from './labeler-support';
import { waitFor } from '../../local/common/wait';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';

const h = e2eHarness();
const logDir = mkdtempSync(join(tmpdir(), 'labeler-late-'));
const created: { name: string; instanceId: string }[] = [];
const records: Record<string, unknown>[] = [];
const lambdas: LocalLambda[] = [];
const eventBridge = new LocalEventBridge(() => undefined);
const retry: RetryPolicy = { retryAttempts: APP_CONFIG_DEFAULTS.labeler.retryAttempts, baseDelayMs: 2_000 };

/** The labeler as deployed: the default timeout, and the wait settings the environment gives (defaults unless set). */
async function startLabeler(name: string, extraEnv: Record<string, string> = {}): Promise<LocalLambda> {
  const lambda = await LocalLambda.start({
    functionName: name,
    entry: LAMBDA_ENTRIES.labeler,
    // EC2 through a proxy that only counts (no fault): the test waits on the labeler's own DescribeInstances calls.
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC', ...labelerEnv(h, extraEnv), AWS_ENDPOINT_URL: (ec2Proxy ?? fail()).url },
    kubeconfig: h.info.controlPlane.lambdaKubeconfigs.labeler,
    timeoutMs: APP_CONFIG_DEFAULTS.labeler.timeoutSeconds * 1000,
    memoryMiB: APP_CONFIG_DEFAULTS.labeler.memorySizeMiB,
    region: LOCAL_AWS_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    logFile: join(logDir, `${name}.log`),
    onLogRecord: (record) => records.push({ ...record, functionName: name }),
  });
  lambdas.push(lambda);
  return lambda;
}

let ec2Proxy: AwsFaultProxy | undefined;
const describeCalls = (): number => (ec2Proxy?.calls ?? []).filter((call) => call.action === 'DescribeInstances').length;

function fail(): never {
  throw new Error('setup did not finish');
}

function recordsOf(functionName: string): Record<string, unknown>[] {
  return records.filter((record) => record.functionName === functionName);
}

/** EMF lines carry the metric as a top-level key next to `_aws`. */
function metricValues(functionName: string, metric: string): unknown[] {
  return recordsOf(functionName).filter((record) => '_aws' in record && metric in record).map((record) => record[metric]);
}

function expectNoErrors(functionName: string, delivery: Delivery): void {
  expect(delivery).toMatchObject({ ok: true, attempts: 1 });
  expect(metricValues(functionName, 'LabelerErrors')).toEqual([]);
  expect(recordsOf(functionName).filter((record) => record.level === 'ERROR')).toEqual([]);
}

let defaultLabeler: LocalLambda;
let shortWaitLabeler: LocalLambda;
beforeAll(async () => {
  ec2Proxy = await startAwsFaultProxy({ target: h.info.motoUrl });
  [defaultLabeler, shortWaitLabeler] = await Promise.all([
    startLabeler('labeler-default'),
    // A short window, so a node that never joins is given up on in seconds; the mechanism is the same.
    startLabeler('labeler-short-wait', { NODE_REGISTRATION_WAIT: '4s' }),
  ]);
});

afterAll(async () => {
  await eventBridge.stop();
  for (const lambda of lambdas) await lambda.stop();
  await ec2Proxy?.stop();
  for (const node of created) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
  rmSync(logDir, { recursive: true, force: true });
});

describe('a node that registers after its running event', () => {
  it('is labelled once it joins ~30 s later, in the same invocation: no error, no retry, no dead letter; only our start-up taint is lifted', async () => {
    const instance = await launchInstance(h.ec2, 'p4d.24xlarge');
    created.push({ name: instance.privateDnsName, instanceId: instance.instanceId });
    const described = describeCalls();
    const sent = Date.now();
    const delivery = eventBridge.deliver(defaultLabeler, ec2StateChangeEvent(instance.instanceId, 'running', LOCAL_AWS_REGION), retry);

    // The node joins after the labeler has been waiting for it through one ended-check (a second DescribeInstances, 30 s in).
    await waitFor('the labeler to check, while waiting, that the instance still runs', () => (describeCalls() >= described + 2 ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    // As a node group with the start-up taint registers it, with the cloud provider's own taint still on.
    const uninitialized = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };
    const registeredAt = Date.now();
    await registerNode(h.core, instance, [{ ...STARTUP_TAINT }, uninitialized]);

    const done = await delivery;
    console.info(`node registered ${((registeredAt - sent) / 1000).toFixed(1)} s after the event; labelled ${((done.finishedAt - registeredAt) / 1000).toFixed(1)} s after registering`);
    expectNoErrors(defaultLabeler.functionName, done);
    expect(done.result).toMatchObject({ kind: 'instance', result: 'labeled', nodeName: instance.privateDnsName, startupTaintRemoved: true });
    // It did wait for the node: the node registered only after the wait's ended-check, which comes
    // ENDED_CHECK_INTERVAL_MS into the wait (the labeler's own clock, whatever the load before the wait began).
    expect((done.result as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(ENDED_CHECK_INTERVAL_MS);

    const node = await h.core.readNode({ name: instance.privateDnsName });
    expect(gpuLabelsOf(node)).toMatchObject({ 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/count': '8' });
    expect(node.spec?.taints).toEqual([uninitialized]);
    expect(metricValues(defaultLabeler.functionName, 'NodesLabeled')).toEqual([1]);
    expect(metricValues(defaultLabeler.functionName, 'StartupTaintsRemoved')).toEqual([1]);
    expect(metricValues(defaultLabeler.functionName, 'NodesNotRegistered')).toEqual([]);
  });

  it('that never joins ends as a counted, explained outcome when the wait is over, not as an error', async () => {
    const instance = await launchInstance(h.ec2, 'g5.12xlarge');
    created.push({ name: instance.privateDnsName, instanceId: instance.instanceId });

    const done = await eventBridge.deliver(shortWaitLabeler, ec2StateChangeEvent(instance.instanceId, 'running', LOCAL_AWS_REGION), retry);

    expectNoErrors(shortWaitLabeler.functionName, done);
    expect(done.result).toMatchObject({ kind: 'instance', result: 'notRegistered', detail: expect.stringContaining(`instance ${instance.instanceId} is running but no node registered`) });
    expect(metricValues(shortWaitLabeler.functionName, 'NodesNotRegistered')).toEqual([1]);
    const warning = recordsOf(shortWaitLabeler.functionName).find((record) => record.message === 'node did not register in time');
    expect(warning).toMatchObject({ level: 'WARN', instanceId: instance.instanceId, detail: expect.stringContaining('the scheduled reconcile labels it') });
  });
});
