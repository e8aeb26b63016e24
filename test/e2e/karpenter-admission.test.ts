// Why the GPU intent is translated at admission: the same GPU pod, asking
// only `gpu.nvidia.com/model: H100` and `gpu.nvidia.com/memory: 80Gi`, on a
// cluster whose only GPU capacity is A10G nodes with free GPUs, with real
// Karpenter (kwok provider) launching from EC2's GPU types.
// - Without the mutating policies (removed for the first case, as on a
//   cluster without them), Karpenter plans with the pod's plain
//   `nvidia.com/gpu: 1`, finds that an A10G node fits, and launches nothing;
//   the extender rejects the A10Gs, so the pod waits for good.
// - With them, in a namespace labelled for the GPU scheduler, the pod is
//   handed to gpu-scheduler and its intent becomes node affinity Karpenter
//   reads: it launches an H100 type, the extender accepts that node, and the
//   pod binds there.
import { KubernetesObjectApi, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { gpuIntentManifests, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { e2eHarness } from './support/e2e-context';
import { waitForKarpenterVerdict } from './support/karpenter-events';
import { createGpuNode } from '../../local/nodes/gpu-nodes';
import type { Karpenter } from '../../local/addons/karpenter';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const harness = e2eHarness();
const { core } = harness;
const objects = KubernetesObjectApi.makeApiClient(harness.kubeConfig);

const INTENT = { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '80Gi' };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let karpenter: Karpenter | undefined;
let namespace = '';
/** The existing A10G capacity. */
const a10gNodes: string[] = [];

/** The mutating policies' bindings, as the harness installed them: removing a binding turns its policy off. */
const mutatingBindings = gpuIntentManifests({
  schedulerName: GPU_SCHEDULER_NAME,
  annotationCheck: APP_CONFIG_DEFAULTS.admission.gpuAnnotations,
  kubernetesVersion: APP_CONFIG_DEFAULTS.kubernetesVersion,
}).filter((manifest) => manifest.kind === 'MutatingAdmissionPolicyBinding');

/** A dry-run GPU pod in the namespace: whether the admission policies rewrite it now (they apply a moment after a change). */
async function policiesApply(): Promise<boolean> {
  const pod = await core.createNamespacedPod({ namespace, dryRun: 'All', body: intentPod('probe') });
  return pod.spec?.affinity?.nodeAffinity !== undefined;
}

/** The pod as written: the intent in annotations; no scheduler, no toleration, no affinity. */
function intentPod(name: string): V1Pod {
  return {
    metadata: { name, annotations: INTENT },
    spec: { containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
  };
}

/** Without the policies a user opts a pod in by hand, as before: scheduler and toleration written in the manifest. */
function handWrittenPod(name: string): V1Pod {
  const pod = intentPod(name);
  return { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], schedulerName: GPU_SCHEDULER_NAME, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] } };
}

const launchedTypes = async (): Promise<string[]> =>
  ((await karpenter?.listNodeClaims()) ?? []).map((claim) => claim.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '?').sort();

beforeAll(async () => {
  await harness.resetCluster();
  const ns = await core.createNamespace({ body: { metadata: { generateName: 'karpenter-admission-', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  namespace = ns.metadata?.name ?? '';
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  karpenter = await harness.startKarpenter({
    // The GPU node groups' taint, as the stack's NodePools carry it.
    nodePool: { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] },
  });
  // Existing capacity: two A10G nodes (4 GPUs each, all free), labelled as Karpenter's AWS provider labels them.
  const a10g = karpenter.instanceTypes.find((type) => type.kwok.name === 'g5.12xlarge');
  if (!a10g) throw new Error('g5.12xlarge is missing from the instance types');
  for (const zone of ['us-east-1a', 'us-east-1b']) {
    a10gNodes.push(await createGpuNode(harness.nodeClients, { instanceType: 'g5.12xlarge', zone, labels: a10g.labels, taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }).then((node) => node.name));
  }
}, 180_000);

afterAll(async () => {
  // Whatever a case left, the policies go back as the harness installed them.
  for (const binding of mutatingBindings) await objects.create(binding as KubernetesObject).catch(() => undefined);
  await karpenter?.stop();
  await harness.tearDown(namespace, scheduler, extender);
}, 120_000);

describe('GPU intent translated at admission is what makes Karpenter launch the right GPU', () => {
  it('without the mutating policies, the same pod waits for good: Karpenter sees a plain nvidia.com/gpu an A10G node fits, and launches nothing', async () => {
    for (const binding of mutatingBindings) await objects.delete(binding as KubernetesObject);
    await waitFor('the mutating policies to stop applying', async () => ((await policiesApply()) ? undefined : true), { timeoutMs: 30_000, intervalMs: 200 });

    const name = 'untranslated';
    const created = await core.createNamespacedPod({ namespace, body: handWrittenPod(name) });
    expect(created.spec?.affinity).toBeUndefined();
    const event = await waitForPodEvent(core, { namespace, name }, (e) => e.reason === 'FailedScheduling' && e.source?.component !== 'karpenter', 60_000);
    // The extender rejects the A10Gs for the model the pod asks...
    expect(event.message).toMatch(/GPU model mismatch: pod wants H100, node has/);
    // ...while Karpenter, which never reads annotations, counts the A10Gs' free GPUs as room: it nominates one of them.
    const nominated = await waitForKarpenterVerdict(core, { namespace, name }, 'Nominated');
    expect(nominated.message).toMatch(new RegExp(`Pod should schedule on: node/(${a10gNodes.join('|')})$`));
    expect(await launchedTypes()).toEqual([]);
    expect((await core.readNamespacedPod({ namespace, name })).spec?.nodeName).toBeUndefined();
    await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });

    for (const binding of mutatingBindings) await objects.create(binding as KubernetesObject);
    await waitFor('the mutating policies to apply again', async () => ((await policiesApply()) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 });
  }, 180_000);

  it('with them, the pod written with annotations only is opted in, Karpenter launches an H100 type, and the pod binds there', async () => {
    const name = 'translated';
    const created = await core.createNamespacedPod({ namespace, body: intentPod(name) });
    expect(created.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    // Karpenter's own keys come first among the terms it may try.
    const terms = created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    expect(terms[0]?.matchExpressions).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: expect.arrayContaining(['h100']) as unknown })]),
    );

    const claim = await waitFor('a NodeClaim launched by Karpenter', async () => (await karpenter?.listNodeClaims())?.find((c) => c.status?.nodeName), { timeoutMs: 120_000 });
    const node = await waitForPodScheduled(core, { namespace, name }, 120_000);
    expect(node).toBe(claim.status?.nodeName);
    const launched = await core.readNode({ name: node });
    expect(launched.metadata?.labels?.['karpenter.k8s.aws/instance-gpu-name']).toBe('h100');
    // The extender accepted the launched node for the H100 / 80Gi the pod asks.
    expect(extender?.filterDecisionsOf(namespace, name).at(-1)).toMatchObject({ kept: 1 });
    expect(await launchedTypes()).toEqual(['p5.48xlarge']);
  }, 240_000);
});
