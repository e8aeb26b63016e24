// Opting workloads in by namespace, with real Karpenter launching GPU nodes
// (kwok provider backed by moto instances) and the GPU-intent admission
// policies the harness installed as the CDK app deploys them:
// - a Deployment whose manifest says only its GPU intent (annotations and
//   nvidia.com/gpu), in a namespace labelled for the GPU scheduler, gets the
//   gpu-scheduler, the GPU taint's toleration and node affinity at admission;
//   Karpenter launches a node for it (the NodePool carries the GPU taint) and
//   it binds there;
// - a pod whose intent no instance type of the list meets gets FailedScheduling
//   from the gpu-scheduler (node affinity) and from Karpenter (the last
//   affinity term's failure, which is all Karpenter reports), and Karpenter
//   launches nothing;
// - a misspelt annotation key draws the admission warning;
// - once the label is removed, the Deployment's next pod is left as written
//   (default scheduler, no toleration): it is opted out, the running pod stays.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFFINITY_LABELLERS } from '../../cdk/lib/admission/gpu-intent-cel';
import { GPU_INTENT_POLICY_NAMES, GPU_NODE_TAINT_KEY, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { e2eHarness } from './support/e2e-context';
import { fromKarpenter, isFailedScheduling, waitForKarpenterVerdict } from './support/karpenter-events';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import type { Karpenter } from '../../local/addons/karpenter';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, apps } = harness;

const GPU_TAINT = { key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NoSchedule' } as const;
const DEPLOYMENT = 'trainer';
const APP_LABEL = { app: DEPLOYMENT };

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let karpenter: Karpenter | undefined;
let namespace = '';
/** The Deployment's first pod and the node launched for it. */
let firstPod = '';
let launchedNode = '';

const ourTolerations = (pod: V1Pod) => (pod.spec?.tolerations ?? []).filter((t) => t.key === GPU_NODE_TAINT_KEY);
const claimNames = async (): Promise<string[]> => ((await karpenter?.listNodeClaims()) ?? []).map((claim) => claim.metadata.name).sort();
const deploymentPods = async (): Promise<V1Pod[]> => (await core.listNamespacedPod({ namespace, labelSelector: `app=${DEPLOYMENT}` })).items;

/** A pod as a user writes it: GPU intent in annotations, a GPU limit; no scheduler, toleration or affinity. */
function intentSpec(annotations: Record<string, string>): { metadata: { annotations: Record<string, string> }; spec: V1Pod['spec'] } {
  return {
    metadata: { annotations },
    spec: { containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: '1' } } }] },
  };
}

beforeAll(async () => {
  await harness.resetCluster();
  const ns = await core.createNamespace({ body: { metadata: { generateName: 'karpenter-opt-in-', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  namespace = ns.metadata?.name ?? '';
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' });
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
  // The GPU node groups' taint, as the stack's NodePools carry it: only pods that tolerate it get these nodes.
  karpenter = await harness.startKarpenter({ nodePool: { taints: [GPU_TAINT] } });
}, 180_000);

afterAll(async () => {
  if (karpenter) console.log(`--- Karpenter log tail ---\n${karpenter.logTail(20)}`);
  await karpenter?.stop();
  await harness.tearDown(namespace, scheduler, extender);
}, 120_000);

describe('GPU workloads opted in by a namespace label, with Karpenter launching their nodes', () => {
  it('a Deployment in the labelled namespace is opted in without a word of it in its manifest, and Karpenter launches the node it binds to', async () => {
    const template = intentSpec({ 'gpu.nvidia.com/model': 'L40S' });
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: DEPLOYMENT },
        spec: { replicas: 1, selector: { matchLabels: APP_LABEL }, template: { metadata: { ...template.metadata, labels: APP_LABEL }, spec: template.spec } },
      },
    });
    const pod = await waitFor('the Deployment\'s pod', async () => (await deploymentPods())[0], { timeoutMs: 60_000 });
    firstPod = pod.metadata?.name ?? '';
    // The stored Deployment is as written; its pod was changed at admission.
    const stored = await apps.readNamespacedDeployment({ name: DEPLOYMENT, namespace });
    expect(stored.spec?.template.spec?.schedulerName).toBe('default-scheduler');
    expect(stored.spec?.template.spec?.tolerations).toBeUndefined();
    expect(pod.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    expect(ourTolerations(pod)).toEqual([{ key: GPU_NODE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' }]);
    const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    expect(terms[0]?.matchExpressions).toContainEqual({ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['l40s'] });

    const claim = await waitFor('a NodeClaim launched by Karpenter', async () => (await karpenter?.listNodeClaims())?.find((c) => c.status?.nodeName), { timeoutMs: 120_000 });
    expect(claim.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('g6e.xlarge');
    launchedNode = await waitForPodScheduled(core, { namespace, name: firstPod }, 120_000);
    expect(launchedNode).toBe(claim.status?.nodeName);
    // Bound by the gpu-scheduler after the extender accepted the launched node.
    expect(extender?.filterDecisionsOf(namespace, firstPod).at(-1)).toMatchObject({ kept: 1 });
    const node = await core.readNode({ name: launchedNode });
    expect(node.spec?.taints).toContainEqual(GPU_TAINT);
  }, 300_000);

  it('a pod whose GPU no instance type has gets FailedScheduling from the gpu-scheduler and from Karpenter, and Karpenter launches nothing', async () => {
    const before = await claimNames();
    const name = 'wants-b200';
    const created = await core.createNamespacedPod({ namespace, body: { ...intentSpec({ 'gpu.nvidia.com/model': 'B200' }), metadata: { name, annotations: { 'gpu.nvidia.com/model': 'B200' } } } });
    // Translated at admission into affinity Karpenter reads.
    const terms = created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    expect(terms[0]?.matchExpressions).toContainEqual({ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['b200'] });

    const schedulerReason = await waitForPodEvent(core, { namespace, name }, (e) => isFailedScheduling(e) && !fromKarpenter(e), 60_000);
    expect(schedulerReason.message).toMatch(/0\/\d+ nodes are available: \d+ node\(s\) didn't match Pod's node affinity/);
    const karpenterReason = await waitForKarpenterVerdict(core, { namespace, name }, 'FailedScheduling');
    // Karpenter tries the required terms in order and reports the last one's failure: the last
    // labeller's key (GPU Feature Discovery's), which no instance type of a Karpenter NodePool carries.
    const lastModelKey = AFFINITY_LABELLERS.at(-1)?.modelKey ?? '';
    expect(terms.at(-1)?.matchExpressions?.[0]?.key).toBe(lastModelKey);
    expect(karpenterReason.message).toBe(`Failed to schedule pod, incompatible requirements, label "${lastModelKey}" does not have known values`);

    // Karpenter's decision is made (its event): it launched nothing.
    expect(await claimNames()).toEqual(before);
    expect((await core.readNamespacedPod({ namespace, name })).spec?.nodeName).toBeUndefined();
    await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });
  }, 180_000);

  it('a misspelt GPU annotation key draws the admission warning, naming the key and the allowed ones', async () => {
    const response = await core.createNamespacedPodWithHttpInfo({ namespace, dryRun: 'All', body: { ...intentSpec({ 'gpu.nvidia.com/modle': 'L40S' }), metadata: { name: 'misspelt', annotations: { 'gpu.nvidia.com/modle': 'L40S' } } } });
    const warning = response.headers.warning ?? '';
    expect(warning).toContain(`ValidatingAdmissionPolicy '${GPU_INTENT_POLICY_NAMES.annotationCheck}'`);
    expect(warning).toContain('unknown GPU annotation gpu.nvidia.com/modle');
    expect(warning).toContain('allowed keys: gpu.nvidia.com/model');
    // The pod is still admitted (warn mode), and without a model term: the misspelt intent is lost, which is what the warning is for.
    const terms = response.data.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    expect(terms.flatMap((term) => term.matchExpressions ?? []).filter((e) => e.key === 'karpenter.k8s.aws/instance-gpu-name')).toEqual([]);
  });

  it('removing the label opts the Deployment\'s next pod out (default scheduler, no toleration); the running pod stays', async () => {
    if (!firstPod || !launchedNode) throw new Error('the opt-in case did not bind its pod');
    const before = await claimNames();
    await core.patchNamespace({ name: namespace, body: { metadata: { labels: { [NAMESPACE_OPT_IN.key]: null } } } }, MERGE_PATCH_OPTIONS);
    // The policies read the namespace through an informer: the label's removal reaches them a moment later.
    const probe = await waitFor('a pod of the namespace to be left as written', async () => {
      const dryRun = await core.createNamespacedPod({ namespace, dryRun: 'All', body: { ...intentSpec({ 'gpu.nvidia.com/model': 'L40S' }), metadata: { name: 'probe' } } });
      return dryRun.spec?.schedulerName === 'default-scheduler' ? dryRun : undefined;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    expect(probe.spec?.affinity).toBeUndefined();

    await apps.patchNamespacedDeploymentScale({ name: DEPLOYMENT, namespace, body: { spec: { replicas: 2 } } }, MERGE_PATCH_OPTIONS);
    const next = await waitFor('the Deployment\'s next pod', async () => (await deploymentPods()).find((p) => p.metadata?.name !== firstPod), { timeoutMs: 60_000 });
    expect(next.spec?.schedulerName).toBe('default-scheduler');
    expect(ourTolerations(next)).toEqual([]);
    expect(next.spec?.affinity).toBeUndefined();
    // The default scheduler finds no untainted GPU node, and Karpenter will not launch a tainted one for a pod that does not tolerate it.
    const nextName = next.metadata?.name ?? '';
    const reason = await waitForPodEvent(core, { namespace, name: nextName }, (e) => isFailedScheduling(e) && !fromKarpenter(e), 60_000);
    expect(reason.message).toMatch(/0\/\d+ nodes are available: \d+ node\(s\) had untolerated taint/);
    // Karpenter's own verdict: its NodePool's taint, which the pod does not tolerate.
    const karpenterReason = await waitForKarpenterVerdict(core, { namespace, name: nextName }, 'FailedScheduling');
    expect(karpenterReason.message).toMatch(/tolerate/);
    expect(await claimNames()).toEqual(before);
    // Pods created before the change keep what admission gave them, and their node.
    const first = await core.readNamespacedPod({ namespace, name: firstPod });
    expect(first.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    expect(first.spec?.nodeName).toBe(launchedNode);
  }, 180_000);
});
