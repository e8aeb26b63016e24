// The admission policies that limit the labeler's and the reconciler's writes
// to their own keys (cdk/lib/access/write-limit-policy.ts), on the real
// kube-apiserver: the harness installed them at start-up as the CDK app
// deploys them, and here each Lambda's identity tries patches it must not make.
import type { CoreV1Api, V1Node, V1Pod } from '@kubernetes/client-node';
import { CoreV1Api as CoreApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_WRITE_LIMITS, writeLimitDenialPrefix } from '../../cdk/lib/access/write-limit-policy';
import { kubeStatusCode } from '../../lambdas/kube';
import { GPU_LABEL } from '../../lambdas/labeler/gpu-labels';
import { POD_DELETION_COST_ANNOTATION } from '../../lambdas/reconciler/pod-view';
import { KARPENTER_DO_NOT_DISRUPT_ANNOTATION } from '../../lambdas/reconciler/do-not-disrupt';
import { NODE_ANNOTATION, NODE_LABEL, NODE_TAINT, POD_LABEL } from '../../lambdas/scheduling/keys';
import { e2eHarness } from './support/e2e-context';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const h = e2eHarness();
const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const FOREIGN_TAINT = { key: 'example.com/dedicated', value: 'ml', effect: 'NoSchedule' };
const OUR_TAINT = { key: NODE_TAINT.gpuLabelsPending, value: 'true', effect: 'NoSchedule' };

const asIdentity = (component: 'labeler' | 'reconciler'): CoreV1Api => {
  const kc = new KubeConfig();
  kc.loadFromFile(h.info.controlPlane.lambdaKubeconfigs[component]);
  return kc.makeApiClient(CoreApi);
};
const labeler = asIdentity('labeler');
const reconciler = asIdentity('reconciler');

let namespace = '';
let nodeName = '';
const podName = 'write-limits';

beforeAll(async () => {
  namespace = await h.createNamespace('write-limits');
  const node = await h.core.createNode({
    body: {
      metadata: {
        generateName: 'write-limits-',
        labels: { 'example.com/team': 'ml', [GPU_LABEL.model]: 'A10G' },
        annotations: { 'example.com/owner': 'platform' },
      },
      spec: { providerID: 'aws:///us-east-1a/i-0123456789abcdef0', taints: [FOREIGN_TAINT, OUR_TAINT] },
    },
  });
  nodeName = node.metadata?.name ?? '';
  await h.core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: podName, labels: { app: 'web' }, annotations: { 'example.com/owner': 'platform' } },
      spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
});

afterAll(async () => {
  await h.core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (nodeName) await h.core.deleteNode({ name: nodeName }).catch(() => undefined);
});

const patchNode = (client: CoreV1Api, body: object): Promise<V1Node> => client.patchNode({ name: nodeName, body }, MERGE_PATCH_OPTIONS);
const patchPod = (client: CoreV1Api, body: object): Promise<V1Pod> => client.patchNamespacedPod({ namespace, name: podName, body }, MERGE_PATCH_OPTIONS);

/** The API server's refusal, naming the policy, its binding and the validation's message. */
async function expectRefused(write: Promise<unknown>, group: string, message: string): Promise<void> {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the write was accepted').toBeDefined();
  expect(kubeStatusCode(error)).toBe(403);
  expect(String(error)).toContain(`${writeLimitDenialPrefix(group)}${message}`);
}

describe('the labeler may change only its own node labels and remove its start-up taint', () => {
  const { group } = LAMBDA_WRITE_LIMITS.labeler;
  const labelsMessage = `${group} may change only these node labels: ${LAMBDA_WRITE_LIMITS.labeler.nodes.labels.join(', ')}`;

  it('is refused a foreign label, a foreign annotation, a new taint, a foreign taint removal and a spec field', async () => {
    await expectRefused(patchNode(labeler, { metadata: { labels: { 'example.com/team': 'web' } } }), group, labelsMessage);
    await expectRefused(patchNode(labeler, { metadata: { labels: { 'example.com/team': null } } }), group, labelsMessage);
    await expectRefused(patchNode(labeler, { metadata: { annotations: { 'example.com/owner': 'me' } } }), group, `${group} may change no node annotations`);
    await expectRefused(
      patchNode(labeler, { spec: { taints: [FOREIGN_TAINT, OUR_TAINT, { key: 'example.com/new', effect: 'NoSchedule' }] } }),
      group,
      `${group} may only remove these node taints: ${NODE_TAINT.gpuLabelsPending}`,
    );
    await expectRefused(patchNode(labeler, { spec: { taints: [OUR_TAINT] } }), group, `${group} may only remove these node taints`);
    await expectRefused(patchNode(labeler, { spec: { unschedulable: true } }), group, `${group} may change no node spec field other than its taints`);
    await expectRefused(patchNode(labeler, { metadata: { finalizers: ['example.com/keep'] } }), group, `${group} may change no other field of a node`);

    const node = await h.core.readNode({ name: nodeName });
    expect(node.metadata?.labels?.['example.com/team']).toBe('ml');
    expect(node.spec?.taints).toEqual([FOREIGN_TAINT, OUR_TAINT]);
    expect(node.spec?.unschedulable).toBeUndefined();
  });

  it('may set and remove its labels and remove its taint (the JSON Patch the labeler sends)', async () => {
    const labelled = await patchNode(labeler, { metadata: { labels: { [GPU_LABEL.model]: 'H100', [GPU_LABEL.count]: '8' } } });
    expect(labelled.metadata?.labels).toMatchObject({ [GPU_LABEL.model]: 'H100', [GPU_LABEL.count]: '8', 'example.com/team': 'ml' });
    await patchNode(labeler, { metadata: { labels: { [GPU_LABEL.count]: null } } });

    const untainted = await labeler.patchNode(
      {
        name: nodeName,
        body: [
          { op: 'test', path: '/spec/taints/1/key', value: OUR_TAINT.key },
          { op: 'remove', path: '/spec/taints/1' },
        ],
      },
      JSON_PATCH,
    );
    expect(untainted.spec?.taints).toEqual([FOREIGN_TAINT]);
    expect(untainted.metadata?.labels?.[GPU_LABEL.count]).toBeUndefined();
  });
});

describe('the reconciler may change only the deletion cost of pods and the utilization and GPU health of nodes', () => {
  const { group } = LAMBDA_WRITE_LIMITS.reconciler;

  it('is refused a foreign or own-looking label, a foreign annotation, a taint and a spec field on nodes', async () => {
    await expectRefused(patchNode(reconciler, { metadata: { labels: { [GPU_LABEL.model]: 'B200' } } }), group, `${group} may change only these node labels: ${NODE_LABEL.gpuHealth}`);
    await expectRefused(
      patchNode(reconciler, { metadata: { annotations: { 'example.com/owner': 'me' } } }),
      group,
      `${group} may change only these node annotations: ${NODE_ANNOTATION.gpuUtilization}, ${NODE_ANNOTATION.gpuHealthReasons}`,
    );
    await expectRefused(patchNode(reconciler, { spec: { taints: [] } }), group, `${group} may change no node taints`);
    await expectRefused(patchNode(reconciler, { spec: { unschedulable: true } }), group, `${group} may change no node spec field`);
  });

  it('may write and remove the GPU health label and its reasons on nodes', async () => {
    const degraded = await patchNode(reconciler, { metadata: { labels: { [NODE_LABEL.gpuHealth]: 'degraded' }, annotations: { [NODE_ANNOTATION.gpuHealthReasons]: 'NvidiaPCIeError, last 2026-12-01T11:00:00Z' } } });
    expect(degraded.metadata?.labels?.[NODE_LABEL.gpuHealth]).toBe('degraded');
    const cleared = await patchNode(reconciler, { metadata: { labels: { [NODE_LABEL.gpuHealth]: null }, annotations: { [NODE_ANNOTATION.gpuHealthReasons]: null } } });
    expect(cleared.metadata?.labels?.[NODE_LABEL.gpuHealth]).toBeUndefined();
    expect(cleared.metadata?.annotations?.[NODE_ANNOTATION.gpuHealthReasons]).toBeUndefined();
  });

  it('is refused a foreign label, a foreign annotation and a spec field on pods', async () => {
    await expectRefused(patchPod(reconciler, { metadata: { labels: { app: 'db' } } }), group, `${group} may change only these pod labels: ${POD_LABEL.doNotDisruptOwner}`);
    await expectRefused(
      patchPod(reconciler, { metadata: { annotations: { 'example.com/owner': null } } }),
      group,
      `${group} may change only these pod annotations: ${POD_DELETION_COST_ANNOTATION}`,
    );
    await expectRefused(patchPod(reconciler, { spec: { activeDeadlineSeconds: 60 } }), group, `${group} may change no pod spec field`);
    const pod = await h.core.readNamespacedPod({ namespace, name: podName });
    expect(pod.metadata?.annotations).toEqual({ 'example.com/owner': 'platform' });
    expect(pod.spec?.activeDeadlineSeconds).toBeUndefined();
  });

  it('may write and remove its own annotations', async () => {
    const pod = await patchPod(reconciler, { metadata: { annotations: { [POD_DELETION_COST_ANNOTATION]: '450' } } });
    expect(pod.metadata?.annotations).toEqual({ 'example.com/owner': 'platform', [POD_DELETION_COST_ANNOTATION]: '450' });
    const node = await patchNode(reconciler, { metadata: { annotations: { [NODE_ANNOTATION.gpuUtilization]: '50' } } });
    expect(node.metadata?.annotations?.[NODE_ANNOTATION.gpuUtilization]).toBe('50');
    const cleared = await patchNode(reconciler, { metadata: { annotations: { [NODE_ANNOTATION.gpuUtilization]: null } } });
    expect(cleared.metadata?.annotations?.[NODE_ANNOTATION.gpuUtilization]).toBeUndefined();
    expect(cleared.metadata?.annotations?.['example.com/owner']).toBe('platform');
  });

  it('may add karpenter.sh/do-not-disrupt with its owner label and remove it, never a do-not-disrupt the pod came with', async () => {
    const ownedMessage = `${group} may change ${KARPENTER_DO_NOT_DISRUPT_ANNOTATION} only on a pod it marked with ${POD_LABEL.doNotDisruptOwner}`;
    // Without the owner label: refused.
    await expectRefused(patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' } } }), group, ownedMessage);
    const set = await patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: { [POD_LABEL.doNotDisruptOwner]: 'reconciler' } } });
    expect(set.metadata?.annotations?.[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBe('true');
    const cleared = await patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null }, labels: { [POD_LABEL.doNotDisruptOwner]: null } } });
    expect(cleared.metadata?.annotations?.[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBeUndefined();
    expect(cleared.metadata?.labels).toEqual({ app: 'web' });

    // The user's own: neither removed nor altered, even if the reconciler also sends its label.
    await patchPod(h.core, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' } } });
    await expectRefused(patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null } } }), group, ownedMessage);
    await expectRefused(
      patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null }, labels: { [POD_LABEL.doNotDisruptOwner]: null } } }),
      group,
      ownedMessage,
    );
    await expectRefused(patchPod(reconciler, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: '1h' } } }), group, ownedMessage);
    expect((await h.core.readNamespacedPod({ namespace, name: podName })).metadata?.annotations?.[KARPENTER_DO_NOT_DISRUPT_ANNOTATION]).toBe('true');
    await patchPod(h.core, { metadata: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null } } });
  });
});

describe('everyone else', () => {
  it('is not matched: the admin changes labels, annotations, taints and spec freely', async () => {
    const node = await patchNode(h.core, {
      metadata: { labels: { 'example.com/team': 'web' }, annotations: { 'example.com/owner': 'me' } },
      spec: { unschedulable: true, taints: [] },
    });
    expect(node.spec?.unschedulable).toBe(true);
    const pod = await patchPod(h.core, { metadata: { labels: { app: 'db' } }, spec: { activeDeadlineSeconds: 60 } });
    expect(pod.spec?.activeDeadlineSeconds).toBe(60);
  });
});
