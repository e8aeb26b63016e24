// The node labeler when EC2 throttles, fails or answers slowly: its own SDK
// client (lambdas/aws/clients.ts, AWS_RETRY) talks to moto through
// local/proxies/aws-fault-proxy.ts, which answers chosen calls with EC2's real
// `RequestLimitExceeded` (query/XML) and `InternalError`, or forwards them
// late. Asserts: throttled calls are retried with backoff and the event
// labels its node within the function's timeout, without failing (no
// dead-letter message); a call that keeps failing fails the event after
// AWS_RETRY.maxAttempts tries (Lambda's retries, then the dead-letter queue:
// a truly failed event), and the next reconcile pass labels the node anyway.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AWS_RETRY } from '../../lambdas/aws/clients';
import { createNodeGateway } from '../../lambdas/kube';
import { createLabelerHandler, type LabelerResult } from '../../lambdas/labeler/labeler-handler';
import { METRIC, SERVICE } from '../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import { startAwsFaultProxy, type AwsCall, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';
import type { FaultKind, FaultPlan } from '../../local/proxies/fault-plan';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, LOCAL_CLUSTER_NAME, type GpuNode } from '../../local/nodes/gpu-nodes';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { awsEnvironment } from '../../local/aws/moto';
import { gpuLabelsOf, scheduledEvent, stateChangeEvent } from './labeler-support';

const h = e2eHarness();
/** The labeler's deployed timeout (cdk/app-config: 240 s). */
const LABELER_TIMEOUT_MS = 240_000;

let proxy: AwsFaultProxy | undefined;
let plan: FaultPlan<AwsCall> | undefined;
/** Calls per `<service> <action>` the proxy saw since the last reset. */
const attempts = (): ReadonlyMap<string, number> => proxy?.attempts ?? new Map<string, number>();
const created: GpuNode[] = [];

function labeler() {
  if (!proxy) throw new Error('setup did not finish');
  const telemetry = createTelemetry(SERVICE.labeler);
  const record = vi.spyOn(telemetry, 'record');
  const kc = new KubeConfig();
  kc.loadFromFile(h.info.controlPlane.lambdaKubeconfigs.labeler);
  // No EC2 client handed in: the labeler builds its own, with the retry settings under test.
  const handler = createLabelerHandler({ env: { ...awsEnvironment(proxy.url), CLUSTER_NAME: LOCAL_CLUSTER_NAME }, nodes: createNodeGateway(kc), telemetry });
  const invoke = (event: unknown): Promise<LabelerResult> => handler(event, localLambdaContext({ functionName: SERVICE.labeler, timeoutMs: LABELER_TIMEOUT_MS }));
  const ec2Errors = () => record.mock.calls.filter(([metric, , dims]) => metric === METRIC.labelerErrors && dims?.Kind === 'Ec2').length;
  return { invoke, ec2Errors };
}

/** A GPU node whose instance is in moto and whose Node has no GPU labels yet. */
async function unlabelledNode(instanceType: string): Promise<GpuNode> {
  const node = await createGpuNode(h.nodeClients, { instanceType });
  created.push(node);
  expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))).toEqual({});
  return node;
}

const proxied = (fault: FaultKind) => proxy?.calls.filter((c) => c.fault === fault).length ?? 0;

beforeAll(async () => {
  proxy = await startAwsFaultProxy({
    target: h.info.motoUrl,
    faults: (call, attempt) => plan?.(call, attempt),
  });
});

afterAll(async () => {
  plan = undefined;
  for (const node of created) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
  await proxy?.stop();
});

describe('the labeler when EC2 throttles, fails or is slow', () => {
  it('throttled (RequestLimitExceeded twice for every call): retried with backoff, the node labelled, the event not failed', async () => {
    const node = await unlabelledNode('g5.xlarge');
    const { invoke, ec2Errors } = labeler();
    proxy?.resetAttempts();
    const throttledBefore = proxied('throttle');
    plan = (call, attempt) => (call.service === 'ec2' && attempt <= 2 ? { kind: 'throttle' } : undefined);
    const started = Date.now();
    const result = await invoke(stateChangeEvent(node.instanceId));
    const seconds = (Date.now() - started) / 1000;
    plan = undefined;
    const throttled = proxied('throttle') - throttledBefore;
    console.log(`throttled: ${throttled} throttled answers, labelled in ${seconds.toFixed(1)} s (${JSON.stringify(Object.fromEntries(attempts()))})`);
    expect(result).toMatchObject({ kind: 'instance', result: 'labeled' });
    expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))['gpu.nvidia.com/model']).toBe('A10G');
    expect(throttled).toBeGreaterThanOrEqual(4);
    // Every EC2 operation needed its third attempt; none was given up.
    for (const [key, n] of attempts()) if (key.startsWith('ec2 ')) expect(n, key).toBe(3);
    // Generous on purpose (a busy machine slows everything but the back-off): it guards against retries that
    // wait past the labeler's deployed timeout, which would turn a throttled event into a failed one.
    expect(seconds * 1000).toBeLessThan(LABELER_TIMEOUT_MS);
    expect(ec2Errors()).toBe(0);
  });

  it('EC2 failing with 500 on every try: the event fails after the configured attempts (a dead-letter message), the reconcile pass labels the node once EC2 is back', async () => {
    const node = await unlabelledNode('g4dn.xlarge');
    const { invoke, ec2Errors } = labeler();
    proxy?.resetAttempts();
    plan = (call) => (call.service === 'ec2' ? { kind: 'status', status: 500 } : undefined);
    const started = Date.now();
    const failure = await invoke(stateChangeEvent(node.instanceId)).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    const seconds = (Date.now() - started) / 1000;
    plan = undefined;
    console.log(`500s: the event failed after ${seconds.toFixed(1)} s with ${failure ?? 'nothing'}; attempts ${JSON.stringify(Object.fromEntries(attempts()))}`);
    expect(failure).toMatch(/InternalError|internal error/i);
    // The first operation was tried exactly as often as configured, then given up.
    expect([...attempts().values()]).toEqual([AWS_RETRY.maxAttempts]);
    expect(seconds * 1000).toBeLessThan(LABELER_TIMEOUT_MS);
    expect(ec2Errors()).toBe(1);
    expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))).toEqual({});

    const summary = await invoke(scheduledEvent);
    expect(summary).toMatchObject({ kind: 'reconcile', failed: 0 });
    expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))['gpu.nvidia.com/model']).toBe('T4');
  });

  it('EC2 answering after 2 s: the event labels its node, slower, without an error', async () => {
    const node = await unlabelledNode('g5.2xlarge');
    const { invoke, ec2Errors } = labeler();
    proxy?.resetAttempts();
    plan = (call) => (call.service === 'ec2' ? { kind: 'delay', ms: 2_000 } : undefined);
    const started = Date.now();
    const result = await invoke(stateChangeEvent(node.instanceId));
    const seconds = (Date.now() - started) / 1000;
    plan = undefined;
    console.log(`slow: labelled in ${seconds.toFixed(1)} s over ${[...attempts().values()].reduce((a, b) => a + b, 0)} EC2 calls`);
    expect(result).toMatchObject({ kind: 'instance', result: 'labeled' });
    expect(seconds).toBeGreaterThanOrEqual(2);
    expect(seconds * 1000).toBeLessThan(LABELER_TIMEOUT_MS);
    expect(ec2Errors()).toBe(0);
    // Slow is not failed: each operation went out once.
    for (const [key, n] of attempts()) expect(n, key).toBe(1);
  });
});
