/**
 * Faults the real stand-ins cannot produce on demand: CloudWatch failing in
 * the middle of a run, and a pod deleted or changed between the list and the
 * patch. These use in-process fakes of the reconciler's own small interfaces
 * (and of the shared PodGateway for 404/409); everything else about the
 * reconciler is tested end to end against moto and a real kube-apiserver.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { NodeGateway, PodGateway } from '../../../../lambdas/kube';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';
import type { MetricReader } from '../../../../lambdas/reconciler/cloudwatch-metric-reader';
import type { AnnotationWriter, ClusterReader, PatchOutcome } from '../../../../lambdas/reconciler/kube-objects';
import { kubeAnnotationWriter } from '../../../../lambdas/reconciler/kube-objects';
import { reconcile, runFailed } from '../../../../lambdas/reconciler/reconcile';

const now = new Date('2026-11-30T10:00:00Z');
const { settings } = reconcilerConfigFromEnv({ NODE_UTILIZATION_ENABLED: 'false' });

function runningPod(name: string, extra: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  return {
    metadata: {
      namespace: 'serving',
      name,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9', uid: 'rs-uid', controller: true }],
      ...extra,
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date('2026-11-30T09:00:00Z') }] },
  };
}

function recordingWriter(outcome: PatchOutcome = 'written'): AnnotationWriter & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async patchPodAnnotations(namespace, name, annotations) {
      calls.push(`${namespace}/${name} ${Object.entries(annotations).map(([key, value]) => `${key}=${String(value)}`).join(' ')}`);
      return outcome;
    },
    async patchNodeAnnotation(name, key, value) {
      calls.push(`${name} ${key}=${String(value)}`);
      return outcome;
    },
    async patchPodMetadata(namespace, name, patch) {
      calls.push(`${namespace}/${name} ${JSON.stringify(patch)}`);
      return outcome;
    },
    async patchNodeHealth(name, label, reasons) {
      calls.push(`${name} health=${String(label)} reasons=${String(reasons)}`);
      return outcome;
    },
  };
}

const cluster = (pods: V1Pod[]): ClusterReader => ({
  listPods: async () => ({ optedIn: pods, all: pods }),
  listNodes: async (): Promise<V1Node[]> => [],
  listGpuResourceSlices: async () => [],
  listResourceClaims: async () => [],
  listFinishedOwnedPods: async () => [],
  listNominations: async () => [],
  listNodeWarnings: async () => [],
});

describe('reconcile under faults', () => {
  it('writes nothing when the metric read fails: no data must not look like "every pod went idle"', async () => {
    const writer = recordingWriter();
    const failing: MetricReader = {
      latestValues: async () => {
        throw new Error('ThrottlingException: Rate exceeded');
      },
    };
    const summary = await reconcile(settings, {
      cluster: cluster([runningPod('a', { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '800' } })]),
      writer,
      metrics: failing,
      now: () => now,
    });
    expect(writer.calls).toEqual([]);
    expect(summary.errors).toEqual([{ kind: 'CloudWatch', step: 'readMetrics', message: 'ThrottlingException: Rate exceeded' }]);
    expect(runFailed(summary)).toBe(true);
  });

  it('a listing failure is a failed run and writes nothing', async () => {
    const writer = recordingWriter();
    const summary = await reconcile(settings, {
      cluster: { ...cluster([]), listPods: () => Promise.reject(new Error('Forbidden')) },
      writer,
      metrics: { latestValues: async () => new Map() },
      now: () => now,
    });
    expect(writer.calls).toEqual([]);
    expect(summary.errors[0]).toMatchObject({ kind: 'Kubernetes', step: 'listPods' });
    expect(runFailed(summary)).toBe(true);
  });

  it('a failed ResourceSlice listing is a counted Kubernetes error; the outcome still counts the device-plugin GPUs and the run goes on', async () => {
    const writer = recordingWriter();
    const node: V1Node = { metadata: { name: 'p4d', labels: { 'gpu.nvidia.com/model': 'A100' } }, status: { allocatable: { 'nvidia.com/gpu': '8' } } };
    const summary = await reconcile(settings, {
      cluster: {
        ...cluster([runningPod('a', { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '800' } })]),
        listNodes: async () => [node],
        listGpuResourceSlices: () => Promise.reject(Object.assign(new Error('resourceslices.resource.k8s.io is forbidden'), { code: 403 })),
      },
      writer,
      metrics: { latestValues: async () => new Map() },
      now: () => now,
    });
    expect(summary.errors).toEqual([{ kind: 'Kubernetes', step: 'listResourceSlices', message: 'resourceslices.resource.k8s.io is forbidden' }]);
    expect(summary.outcome?.gpus).toMatchObject({ nodes: 1, allocatable: 8 });
    // The deletion costs are still written: slices feed the outcome only.
    expect(writer.calls).toEqual(['serving/a controller.kubernetes.io/pod-deletion-cost=0 karpenter.sh/disruption-cost=0']);
    expect(runFailed(summary)).toBe(false);
  });

  it('counts pods that vanished before their patch, without failing the run', async () => {
    const summary = await reconcile(settings, {
      cluster: cluster([runningPod('gone', { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '800' } })]),
      writer: recordingWriter('gone'),
      metrics: { latestValues: async () => new Map() },
      now: () => now,
    });
    expect(summary).toMatchObject({ podsGone: 1, deletionCostsWritten: 0, errors: [] });
    expect(runFailed(summary)).toBe(false);
  });

  it('one failing patch is counted and the others still go out', async () => {
    let first = true;
    const written: string[] = [];
    const summary = await reconcile(settings, {
      cluster: cluster(['a', 'b', 'c'].map((n) => runningPod(n, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '800' } }))),
      writer: {
        async patchPodAnnotations(_ns, name) {
          if (first) {
            first = false;
            throw new Error('etcdserver: request timed out');
          }
          written.push(name);
          return 'written';
        },
        patchNodeAnnotation: async () => 'written',
        patchPodMetadata: async () => 'written',
        patchNodeHealth: async () => 'written',
      },
      metrics: { latestValues: async () => new Map() },
      now: () => now,
    });
    expect(written).toEqual(['b', 'c']);
    expect(summary.deletionCostsWritten).toBe(2);
    expect(summary.errors).toMatchObject([{ kind: 'Kubernetes', step: 'patchPod' }]);
    expect(runFailed(summary)).toBe(false);
  });
});

describe('kubeAnnotationWriter', () => {
  const apiError = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });
  const gateway = (error: Error | undefined): PodGateway => ({
    listPodPages: async function* () {},
    listPods: async () => [],
    patchPodAnnotations: async () => {
      if (error) throw error;
      return {};
    },
    patchPodMetadata: async () => {
      if (error) throw error;
      return {};
    },
    listPodEvents: async () => [],
  });
  const nodes = {} as NodeGateway;

  it('maps 404 to gone and 409 to conflict, and rethrows anything else', async () => {
    await expect(kubeAnnotationWriter(gateway(undefined), nodes).patchPodAnnotations('ns', 'p', { k: '1' })).resolves.toBe('written');
    await expect(kubeAnnotationWriter(gateway(apiError(404)), nodes).patchPodAnnotations('ns', 'p', { k: '1' })).resolves.toBe('gone');
    await expect(kubeAnnotationWriter(gateway(apiError(409)), nodes).patchPodAnnotations('ns', 'p', { k: '1' })).resolves.toBe('conflict');
    await expect(kubeAnnotationWriter(gateway(apiError(500)), nodes).patchPodAnnotations('ns', 'p', { k: '1' })).rejects.toThrow('HTTP 500');
    const patch = { annotations: { k: null }, labels: { l: null } };
    await expect(kubeAnnotationWriter(gateway(apiError(404)), nodes).patchPodMetadata('ns', 'p', patch)).resolves.toBe('gone');
    await expect(kubeAnnotationWriter(gateway(apiError(500)), nodes).patchPodMetadata('ns', 'p', patch)).rejects.toThrow('HTTP 500');
  });
});
