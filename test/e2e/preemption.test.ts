// Preemption with the extender, end to end. A real kube-scheduler
// (profile gpu-scheduler, the extender configured with preemptVerb: preempt by
// the same builder the CDK uses) calls the extender Lambda handler in-process
// behind the local ALB adapter. Preemption dry-runs skip filter extenders, so
// only /preempt keeps the scheduler from evicting pods on a node the extender
// will then reject (docs: DESIGN.md "Extender protocol").
import { SchedulingV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { e2eHarness } from './support/e2e-context';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode, type GpuNodeSpec } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { finishTerminatingPods, markPodRunning, podEvents, waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;
const scheduling = harness.kubeConfig.makeApiClient(SchedulingV1Api);

// TTL 0: the extender reads the cluster afresh on every call, so its view is
// never older than the scheduler's. With a TTL, a nominated pod's calls are
// still judged on a refreshed snapshot (snapshotFreshnessFor); that case, with
// the deployed TTL, is test/e2e/kube-api-faults-preemption.test.ts.
process.env.EXTENDER_CACHE_TTL = '0ms';

const LOW = { name: 'e2e-preemption-low', value: 10 };
const HIGH = { name: 'e2e-preemption-high', value: 1_000_000 };

/** One /preempt call as the ALB saw it: the candidates kube-scheduler offered and those the extender kept. */
interface PreemptCall {
  pod: string;
  /** Candidate node → victim UIDs (MetaVictims with nodeCacheCapable). */
  offered: Record<string, string[]>;
  kept: Record<string, string[]>;
  status: number;
}
const preemptCalls: PreemptCall[] = [];

interface VictimsJson {
  Pods?: { UID?: string; metadata?: { uid?: string } }[] | null;
}
const victimUids = (map: Record<string, VictimsJson | null> | null | undefined): Record<string, string[]> =>
  Object.fromEntries(Object.entries(map ?? {}).map(([node, v]) => [node, (v?.Pods ?? []).map((p) => p.UID ?? p.metadata?.uid ?? '?').sort()]));

let adapter: AlbAdapter;
let scheduler: ManagedProcess | undefined;
let namespace = '';
const created: GpuNode[] = [];

async function ensurePriorityClass(pc: { name: string; value: number }, preempts: boolean): Promise<void> {
  await scheduling
    .createPriorityClass({
      body: {
        metadata: { name: pc.name },
        value: pc.value,
        preemptionPolicy: preempts ? 'PreemptLowerPriority' : 'Never',
        description: 'test/e2e/preemption.test.ts',
      },
    })
    .catch((error: unknown) => {
      // Left over by an interrupted run: same name, same value (a PriorityClass's value is immutable).
      if (!/409|AlreadyExists/i.test(String(error))) throw error;
    });
}

beforeAll(async () => {
  const { createHandler } = await import('../../lambdas/extender/handler');
  // The extender reads its cluster view (nodes, bound pods) with its own least-privilege identity.
  const handler = createHandler(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const result = await handler(event, context);
      // Observed at the ALB, not mocked: what kube-scheduler asked and what the extender answered.
      if (event.path === '/preempt' && event.body) {
        const args = JSON.parse(event.body) as {
          Pod?: { metadata?: { name?: string } };
          NodeNameToMetaVictims?: Record<string, VictimsJson | null> | null;
          NodeNameToVictims?: Record<string, VictimsJson | null> | null;
        };
        const answer = result.statusCode === 200 && result.body ? (JSON.parse(result.body) as { NodeNameToMetaVictims?: Record<string, VictimsJson | null> }) : {};
        preemptCalls.push({
          pod: args.Pod?.metadata?.name ?? '?',
          offered: victimUids(args.NodeNameToMetaVictims ?? args.NodeNameToVictims),
          kept: victimUids(answer.NodeNameToMetaVictims),
          status: result.statusCode,
        });
      }
      return result;
    },
  });
  namespace = await harness.createNamespace('preemption');
  await harness.resetCluster();
  await ensurePriorityClass(LOW, false);
  await ensurePriorityClass(HIGH, true);
  // As deployed: NodeNames, the preempt verb, not ignorable.
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));
});

afterAll(async () => {
  await scheduler?.stop();
  await adapter?.stop();
  if (namespace) await core.deleteNamespace({ name: namespace });
  for (const pc of [LOW, HIGH]) await scheduling.deletePriorityClass({ name: pc.name }).catch(() => undefined);
});

afterEach(async () => {
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  while (created.length > 0) {
    const node = created.pop();
    if (node) await deleteGpuNode(harness.nodeClients, node);
  }
  await waitFor('pods of the previous case to be gone', async () =>
    (await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined,
  );
  preemptCalls.length = 0;
});

async function gpuNode(spec: GpuNodeSpec): Promise<GpuNode> {
  const facts = await describeInstanceType(harness.ec2, spec.instanceType);
  const node = await createGpuNode(harness.nodeClients, { ...spec, labels: { ...seedGpuLabels(facts), ...spec.labels } });
  created.push(node);
  return node;
}

/** A low-priority pod already running on the node (bound directly, marked Running as its kubelet would). */
async function lowPod(name: string, gpus: number, nodeName: string): Promise<V1Pod> {
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name },
      spec: {
        nodeName,
        priorityClassName: LOW.name,
        containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
      },
    },
  });
  return markPodRunning(core, { namespace, name });
}

async function highPod(name: string, gpus: number, model: string): Promise<V1Pod> {
  return core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, annotations: { 'gpu.nvidia.com/model': model } },
      spec: {
        schedulerName: GPU_SCHEDULER_NAME,
        priorityClassName: HIGH.name,
        containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
      },
    },
  });
}

const read = (name: string): Promise<V1Pod> => core.readNamespacedPod({ namespace, name });
const uidOf = (pod: V1Pod): string => pod.metadata?.uid ?? '?';

describe('preemption through kube-scheduler with the extender’s preempt verb', () => {
  it('evicts only on the node the extender accepts (A100), then binds the preemptor there', async () => {
    const a100 = await gpuNode({ instanceType: 'p4d.24xlarge', name: 'a100' }); // 8 × A100
    const t4 = await gpuNode({ instanceType: 'g4dn.metal', name: 't4' }); // 8 × T4
    // Both nodes full. Left to itself, the scheduler would pick t4: the victims'
    // priorities tie, and t4's sum of victim priorities (one pod) is the smaller.
    const a100Victims = [await lowPod('low-a100-0', 4, a100.name), await lowPod('low-a100-1', 4, a100.name)];
    const t4Pod = await lowPod('low-t4', 8, t4.name);
    expect((await read('low-t4')).spec?.priority).toBe(LOW.value);

    await highPod('trainer', 8, 'A100');
    expect((await read('trainer')).spec?.priority).toBe(HIGH.value);

    // The scheduler nominates a100 and deletes its victims through the API
    // (DeleteOptions{}: their 30 s grace period), after marking them DisruptionTarget.
    const nominated = await waitFor(
      'trainer to be nominated',
      async () => (await read('trainer')).status?.nominatedNodeName || undefined,
      { timeoutMs: 90_000 },
    );
    expect(nominated).toBe(a100.name);
    for (const victim of a100Victims) {
      const name = victim.metadata?.name ?? '';
      const pod = await waitFor(`${name} to be terminating`, async () => {
        const p = await read(name);
        return p.metadata?.deletionTimestamp ? p : undefined;
      });
      const disruption = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      expect(disruption?.reason).toBe('PreemptionByScheduler');
      await waitForPodEvent(core, { namespace, name }, (e) => e.reason === 'Preempted');
    }

    // kube-scheduler asked the extender, offering both nodes with their victims,
    // and the extender kept only a100 (the pod wants A100; t4 has T4s).
    expect(preemptCalls.length).toBeGreaterThanOrEqual(1);
    const first = preemptCalls[0];
    expect(first).toMatchObject({ pod: 'trainer', status: 200 });
    expect(first?.offered).toEqual({ [a100.name]: a100Victims.map(uidOf).sort(), [t4.name]: [uidOf(t4Pod)] });
    for (const call of preemptCalls) expect(Object.keys(call.kept)).toEqual([a100.name]);
    expect(first?.kept[a100.name]).toEqual(a100Victims.map(uidOf).sort());

    // With no kubelet the victims stay Terminating, holding their GPUs, so the
    // preemptor must not bind yet, and t4's pod was never touched: the
    // preemption chose its victims on the nominated node only, all of them
    // deleted by now (their Preempted events), and no deletion finished, so
    // nothing has freed a GPU for a binding.
    expect((await read('trainer')).status?.nominatedNodeName).toBe(a100.name);
    expect((await read('trainer')).spec?.nodeName ?? '').toBe('');
    const untouched = await read('low-t4');
    expect(untouched.metadata?.deletionTimestamp).toBeUndefined();
    expect(untouched.status?.conditions?.some((c) => c.type === 'DisruptionTarget')).toBe(false);
    expect((await podEvents(core, { namespace, name: 'low-t4' })).some((e) => e.reason === 'Preempted')).toBe(false);

    // Play the kubelet: once its containers have stopped, a kubelet confirms the
    // deletion with grace period 0, which removes the pod object.
    expect(await finishTerminatingPods(core, namespace)).toBe(a100Victims.length);
    expect(await waitForPodScheduled(core, { namespace, name: 'trainer' }, 90_000)).toBe(a100.name);
    expect((await read('low-t4')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('keeps the pod Pending and evicts nothing when no full node has the wanted model', async () => {
    const t4 = await gpuNode({ instanceType: 'g4dn.metal', name: 't4' });
    const t4Pod = await lowPod('low-t4', 8, t4.name);

    await highPod('wants-a100', 8, 'A100');
    // In-tree, t4 is a candidate (8 GPUs once low-t4 is gone); the extender drops it.
    const call = await waitFor('a /preempt call for wants-a100', () => preemptCalls.find((c) => c.pod === 'wants-a100'), {
      timeoutMs: 90_000,
    });
    expect(call).toMatchObject({ status: 200, offered: { [t4.name]: [uidOf(t4Pod)] }, kept: {} });
    const event = await waitForPodEvent(
      core,
      { namespace, name: 'wants-a100' },
      (e) => e.reason === 'FailedScheduling' && /preemption/i.test(e.message ?? ''),
      90_000,
    );
    expect(event.message).toMatch(/0\/1 nodes are available: 1 Insufficient nvidia\.com\/gpu/);
    expect(event.message).toContain('preemption: no candidate node for preemption');

    // The decision was made in that cycle and chose no victim (the extender kept none): nothing to delete, no node to nominate.
    const pod = await read('wants-a100');
    expect(pod.spec?.nodeName ?? '').toBe('');
    expect(pod.status?.nominatedNodeName ?? '').toBe('');
    expect(pod.status?.phase).toBe('Pending');
    const untouched = await read('low-t4');
    expect(untouched.metadata?.deletionTimestamp).toBeUndefined();
    expect(untouched.status?.conditions?.some((c) => c.type === 'DisruptionTarget')).toBe(false);
    expect((await podEvents(core, { namespace, name: 'low-t4' })).some((e) => e.reason === 'Preempted')).toBe(false);
  });
});
