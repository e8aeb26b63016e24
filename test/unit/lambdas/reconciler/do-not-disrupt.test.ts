import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { doNotDisruptChange, doNotDisruptChanges, KARPENTER_DO_NOT_DISRUPT_ANNOTATION } from '../../../../lambdas/reconciler/do-not-disrupt';
import type { AnnotationWriter, ClusterReader } from '../../../../lambdas/reconciler/kube-objects';
import { reconcile } from '../../../../lambdas/reconciler/reconcile';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';
import { POD_ANNOTATION, POD_LABEL } from '../../../../lambdas/scheduling/keys';

const OPT_IN = { [POD_ANNOTATION.doNotDisrupt]: 'true' };
const OURS = { [POD_LABEL.doNotDisruptOwner]: 'reconciler' };

function pod(options: {
  name?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  phase?: string;
  nodeName?: string;
  terminating?: boolean;
}): V1Pod {
  return {
    metadata: {
      namespace: 'train',
      name: options.name ?? 'trainer-0',
      annotations: options.annotations,
      labels: options.labels,
      ...(options.terminating ? { deletionTimestamp: new Date('2026-12-01T00:00:00Z') } : {}),
    },
    spec: { containers: [], nodeName: options.nodeName },
    status: { phase: options.phase ?? 'Running' },
  };
}

describe('doNotDisruptChange', () => {
  it('sets Karpenter\'s do-not-disrupt, with the owner label, on an opted-in pod once it is bound', () => {
    expect(doNotDisruptChange(pod({ annotations: OPT_IN, nodeName: 'gpu-1' }))).toEqual({
      namespace: 'train',
      name: 'trainer-0',
      kind: 'set',
      patch: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS },
    });
    // Bound, still Pending (pulling its image): Karpenter counts it on the node already.
    expect(doNotDisruptChange(pod({ annotations: OPT_IN, nodeName: 'gpu-1', phase: 'Pending' }))?.kind).toBe('set');
  });

  it('leaves alone pods not bound yet, not opted in, or opted in with another value', () => {
    expect(doNotDisruptChange(pod({ annotations: OPT_IN, phase: 'Pending' }))).toBeUndefined();
    expect(doNotDisruptChange(pod({ nodeName: 'gpu-1' }))).toBeUndefined();
    expect(doNotDisruptChange(pod({ annotations: { [POD_ANNOTATION.doNotDisrupt]: 'false' }, nodeName: 'gpu-1' }))).toBeUndefined();
  });

  it('accepts " True " as the opt-in, as people write it', () => {
    expect(doNotDisruptChange(pod({ annotations: { [POD_ANNOTATION.doNotDisrupt]: ' True ' }, nodeName: 'gpu-1' }))?.kind).toBe('set');
  });

  it('never touches a do-not-disrupt the pod came with, running or finished', () => {
    const theirs = { ...OPT_IN, [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' };
    expect(doNotDisruptChange(pod({ annotations: theirs, nodeName: 'gpu-1' }))).toBeUndefined();
    expect(doNotDisruptChange(pod({ annotations: theirs, nodeName: 'gpu-1', phase: 'Succeeded' }))).toBeUndefined();
    expect(doNotDisruptChange(pod({ annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: '2h' }, nodeName: 'gpu-1' }))).toBeUndefined();
  });

  it('writes nothing more on a pod that already carries ours', () => {
    expect(doNotDisruptChange(pod({ annotations: { ...OPT_IN, [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS, nodeName: 'gpu-1' }))).toBeUndefined();
  });

  it.each(['Succeeded', 'Failed'])('clears ours when the pod has %s', (phase) => {
    expect(doNotDisruptChange(pod({ annotations: { ...OPT_IN, [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS, nodeName: 'gpu-1', phase }))).toMatchObject({
      kind: 'clear',
      patch: { annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null }, labels: { [POD_LABEL.doNotDisruptOwner]: null } },
    });
  });

  it('clears ours when the pod is no longer opted in, but not while it terminates', () => {
    const ours = { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' };
    expect(doNotDisruptChange(pod({ annotations: ours, labels: OURS, nodeName: 'gpu-1' }))?.kind).toBe('clear');
    expect(doNotDisruptChange(pod({ annotations: ours, labels: OURS, nodeName: 'gpu-1', terminating: true }))).toBeUndefined();
  });

  it('leaves a value someone changed after us, taking only our label away', () => {
    expect(doNotDisruptChange(pod({ annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: '4h' }, labels: OURS, nodeName: 'gpu-1', phase: 'Succeeded' }))?.patch).toEqual({
      annotations: {},
      labels: { [POD_LABEL.doNotDisruptOwner]: null },
    });
  });

  it('sets nothing on a terminating or finished opted-in pod', () => {
    expect(doNotDisruptChange(pod({ annotations: OPT_IN, nodeName: 'gpu-1', terminating: true }))).toBeUndefined();
    expect(doNotDisruptChange(pod({ annotations: OPT_IN, nodeName: 'gpu-1', phase: 'Succeeded' }))).toBeUndefined();
  });

  it('changes each pod once even when two listings both hold it', () => {
    const finished = pod({ annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS, phase: 'Succeeded' });
    expect(doNotDisruptChanges([finished, finished])).toHaveLength(1);
  });
});

describe('reconcile guards opted-in pods', () => {
  const now = new Date('2026-12-01T10:00:00Z');

  async function run(unfinished: V1Pod[], finished: V1Pod[], options: { env?: Record<string, string>; failFinished?: boolean; failMetrics?: boolean } = {}) {
    const { settings } = reconcilerConfigFromEnv({ NODE_UTILIZATION_ENABLED: 'false', ...options.env });
    const patches: string[] = [];
    const writer: AnnotationWriter = {
      patchPodAnnotations: async () => 'written',
      patchNodeAnnotation: async () => 'written',
      patchPodMetadata: async (namespace, name, patch) => {
        patches.push(`${namespace}/${name} ${JSON.stringify(patch)}`);
        return name.endsWith('gone') ? 'gone' : 'written';
      },
      patchNodeHealth: async () => 'written',
    };
    const cluster: ClusterReader = {
      listPods: async () => ({ optedIn: options.failMetrics ? [servingPod] : [], all: unfinished }),
      listNodes: async () => [],
      listGpuResourceSlices: async () => [],
      listResourceClaims: async () => [],
      listFinishedOwnedPods: async () => {
        if (options.failFinished) throw new Error('Forbidden');
        return finished;
      },
      listNominations: async () => [],
      listNodeWarnings: async () => [],
    };
    const summary = await reconcile(settings, {
      cluster,
      writer,
      metrics: {
        latestValues: async () => {
          if (options.failMetrics) throw new Error('ThrottlingException');
          return new Map();
        },
      },
      now: () => now,
    });
    return { summary, patches };
  }

  // A Deployment's pod past its warm-up: its metrics are read, so a failing read matters.
  const servingPod: V1Pod = {
    metadata: { namespace: 'serving', name: 'web-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1a', uid: 'rs', controller: true }] },
    spec: { containers: [], nodeName: 'gpu-2' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now.getTime() - 3_600_000) }] },
  };
  const running = pod({ name: 'trainer-0', annotations: OPT_IN, nodeName: 'gpu-1' });
  const done = pod({ name: 'trainer-1', annotations: { ...OPT_IN, [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS, nodeName: 'gpu-1', phase: 'Succeeded' });

  it('sets it on running pods and clears it on finished ones in the same run', async () => {
    const { summary, patches } = await run([running], [done]);
    expect(patches).toEqual([
      `train/trainer-0 ${JSON.stringify({ annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: 'true' }, labels: OURS })}`,
      `train/trainer-1 ${JSON.stringify({ annotations: { [KARPENTER_DO_NOT_DISRUPT_ANNOTATION]: null }, labels: { [POD_LABEL.doNotDisruptOwner]: null } })}`,
    ]);
    expect([summary.doNotDisruptSet, summary.doNotDisruptCleared, summary.errors]).toEqual([1, 1, []]);
  });

  it('still protects running pods when finished ones cannot be listed (counted, not fatal)', async () => {
    const { summary, patches } = await run([running], [done], { failFinished: true });
    expect(patches).toHaveLength(1);
    expect(summary.errors).toMatchObject([{ kind: 'Kubernetes', step: 'listFinishedPods' }]);
  });

  it('protects even when the metric read fails', async () => {
    const { summary, patches } = await run([running], [], { failMetrics: true });
    expect(summary.errors).toMatchObject([{ kind: 'CloudWatch', step: 'readMetrics' }]);
    expect(patches).toHaveLength(1);
    expect(summary.doNotDisruptSet).toBe(1);
  });

  it('counts a pod deleted under it as gone, not as an error', async () => {
    const { summary } = await run([pod({ name: 'trainer-gone', annotations: OPT_IN, nodeName: 'gpu-1' })], []);
    expect([summary.podsGone, summary.doNotDisruptSet, summary.errors]).toEqual([1, 0, []]);
  });

  it('does nothing with KARPENTER_DO_NOT_DISRUPT=false', async () => {
    const { patches } = await run([running], [done], { env: { KARPENTER_DO_NOT_DISRUPT: 'false' } });
    expect(patches).toEqual([]);
  });
});
