// The GPU-intent admission policies (cdk/lib/admission/gpu-intent-policies.ts)
// on the real kube-apiserver, as the harness installed them at start-up the
// way the CDK app deploys them: pods created through the API come back with
// the scheduler, toleration and node affinity the policies give them, or
// untouched; unknown or malformed GPU annotations draw a warning, or a
// refusal in deny mode.
import type { V1Affinity, V1NodeSelectorTerm, V1Pod } from '@kubernetes/client-node';
import { AdmissionregistrationV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AFFINITY_LABELLERS, knownModelValues } from '../../cdk/lib/admission/gpu-intent-cel';
import { modelMatches, modelTokens } from '../../lambdas/scheduling/gpu-model';
import { GPU_INTENT_POLICY_NAMES, GPU_NODE_TAINT_KEY, gpuIntentManifests, gpuIntentOptionsOf, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { kubeStatusCode } from '../../lambdas/kube';
import { modelLabelValues } from '../../lambdas/scheduling/gpu-label-values';
import { memoryBandsByModel, memoryThresholdMiB } from '../../lambdas/scheduling/gpu-memory-thresholds';
import { e2eHarness } from './support/e2e-context';
import { LAMBDA_COMPONENTS } from '../../local/control-plane/lambda-rbac';
import { GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

const h = e2eHarness();
const { core } = h;
const admission = h.kubeConfig.makeApiClient(AdmissionregistrationV1Api);

let optedIn = '';
let other = '';

beforeAll(async () => {
  const labelled = await core.createNamespace({ body: { metadata: { generateName: 'admission-opted-in-', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  optedIn = labelled.metadata?.name ?? '';
  other = await h.createNamespace('admission-other');
});

afterAll(async () => {
  for (const name of [optedIn, other]) if (name) await core.deleteNamespace({ name }).catch(() => undefined);
});

interface PodOptions {
  annotations?: Record<string, string>;
  resources?: Record<string, string>;
  schedulerName?: string;
  affinity?: V1Affinity;
  tolerations?: { key: string; operator: string; effect?: string }[];
}

let podCount = 0;
function pod(options: PodOptions): V1Pod {
  podCount += 1;
  return {
    metadata: { name: `p${podCount}`, annotations: options.annotations ?? {} },
    spec: {
      ...(options.schedulerName === undefined ? {} : { schedulerName: options.schedulerName }),
      ...(options.affinity === undefined ? {} : { affinity: options.affinity }),
      ...(options.tolerations === undefined ? {} : { tolerations: options.tolerations }),
      containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { limits: options.resources ?? { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

const create = (namespace: string, options: PodOptions): Promise<V1Pod> => core.createNamespacedPod({ namespace, body: pod(options) });
const ourTolerations = (p: V1Pod) => (p.spec?.tolerations ?? []).filter((t) => t.key === GPU_NODE_TAINT_KEY);
const required = (p: V1Pod): V1NodeSelectorTerm[] | undefined => p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;

/** The terms the policy should produce, from the library's own tables: one per labeller, Karpenter's first. */
function expectedTerms(models: readonly string[], memoryMiB: number | undefined): V1NodeSelectorTerm[] {
  const bands = models.length === 0 ? memoryBandsByModel()['*'] : models.flatMap((m) => memoryBandsByModel()[m] ?? []);
  const thresholds = models.length === 0 ? [memoryThresholdMiB(memoryMiB ?? 0, bands ?? [])] : models.map((m) => memoryThresholdMiB(memoryMiB ?? 0, memoryBandsByModel()[m] ?? []));
  const threshold = Math.min(...thresholds);
  return AFFINITY_LABELLERS.map(({ labeller, modelKey, memoryKey }) => ({
    matchExpressions: [
      ...(models.length === 0 ? [] : [{ key: modelKey, operator: 'In', values: models.flatMap((m) => modelLabelValues(m, labeller)) }]),
      ...(memoryMiB === undefined ? [] : [{ key: memoryKey, operator: 'Gt', values: [String(threshold)] }]),
    ],
  }));
}

describe('in a namespace labelled gpu.nvidia.com/scheduler=enabled', () => {
  it('a GPU pod gets the GPU scheduler, a toleration of the GPU taint and required node affinity every labeller\'s keys satisfy', async () => {
    const created = await create(optedIn, { annotations: { 'gpu.nvidia.com/model': 'A100|H100', 'gpu.nvidia.com/memory': '80Gi' } });
    expect(created.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    expect(ourTolerations(created)).toEqual([{ key: GPU_NODE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' }]);
    expect(required(created)).toEqual(expectedTerms(['A100', 'H100'], 80 * 1024));
    // The numbers the memory rule promises: an H100 at GFD's 81559 and EC2's 81920 passes, an A100 40GB does not.
    const threshold = Number(required(created)?.[0]?.matchExpressions?.[1]?.values?.[0]);
    expect(81559).toBeGreaterThan(threshold);
    expect(40960).toBeLessThanOrEqual(threshold);
    expect(required(created)?.[0]?.matchExpressions?.[0]).toEqual({ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['a100', 'h100'] });
  });

  it('the pod\'s own required terms are ANDed with ours (the cross product), its preferred terms kept as they were', async () => {
    const own = [
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] },
    ];
    const preferred = [{ weight: 10, preference: { matchExpressions: [{ key: 'example.com/fast', operator: 'Exists' }] } }];
    const created = await create(optedIn, {
      annotations: { 'gpu.nvidia.com/memory': '24Gi' },
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: own }, preferredDuringSchedulingIgnoredDuringExecution: preferred } },
    });
    const ours = expectedTerms([], 24 * 1024);
    const combined = ours.flatMap((term) =>
      own.map((p) => ({
        matchExpressions: [...(p.matchExpressions ?? []), ...(term.matchExpressions ?? [])],
        ...('matchFields' in p ? { matchFields: p.matchFields } : {}),
      })),
    );
    expect(required(created)).toEqual(combined);
    expect(created.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toEqual(preferred);
    // 24Gi is an A10G's marketed size: EC2's 22888 and NVML's 23028 both pass.
    expect(22888).toBeGreaterThan(Number(ours[0]?.matchExpressions?.[0]?.values?.[0]));
  });

  it('a MIG or shared-GPU pod without annotations gets the scheduler and toleration but no affinity; a toleration it has is not repeated', async () => {
    const mig = await create(optedIn, { resources: { 'nvidia.com/mig-1g.5gb': '1' } });
    expect(mig.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    expect(ourTolerations(mig)).toHaveLength(1);
    expect(mig.spec?.affinity).toBeUndefined();
    const shared = await create(optedIn, { resources: { 'nvidia.com/gpu.shared': '1' }, tolerations: [{ key: GPU_NODE_TAINT_KEY, operator: 'Equal', effect: 'NoSchedule' }] });
    expect(shared.spec?.schedulerName).toBe(GPU_SCHEDULER_NAME);
    expect(ourTolerations(shared)).toEqual([{ key: GPU_NODE_TAINT_KEY, operator: 'Equal', effect: 'NoSchedule' }]);
  });

  it('whatever of the pod\'s affinity exists is kept: pod anti-affinity only, or preferred node affinity only', async () => {
    const antiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } }] };
    const withAnti = await create(optedIn, { annotations: { 'gpu.nvidia.com/memory': '16Gi' }, affinity: { podAntiAffinity: antiAffinity } });
    expect(withAnti.spec?.affinity?.podAntiAffinity).toEqual(antiAffinity);
    expect(required(withAnti)).toEqual(expectedTerms([], 16 * 1024));
    const preferred = [{ weight: 5, preference: { matchExpressions: [{ key: 'example.com/spot', operator: 'DoesNotExist' }] } }];
    const withPreferred = await create(optedIn, { annotations: { 'gpu.nvidia.com/memory': '16Gi' }, affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } });
    expect(withPreferred.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toEqual(preferred);
    expect(required(withPreferred)).toEqual(expectedTerms([], 16 * 1024));
  });

  it('a model named in several words matches only the labels holding every word, as the extender matches names', async () => {
    const created = await create(optedIn, { annotations: { 'gpu.nvidia.com/model': 'NVIDIA A100 40GB' } });
    const wanted = modelTokens('NVIDIA A100 40GB');
    const gfdValues = knownModelValues().filter((k) => k.labeller === 'gfd' && modelMatches(wanted, k.tokens)).map((k) => k.value);
    expect(gfdValues).toEqual(['NVIDIA-A100-SXM4-40GB', 'NVIDIA-A100-SXM4-40GB-SHARED']);
    // Karpenter, Auto Mode and our labeler write only `a100` / `A100`: no term of theirs could hold a 40GB A100 by name.
    expect(required(created)).toEqual([{ matchExpressions: [{ key: 'nvidia.com/gpu.product', operator: 'In', values: gfdValues }] }]);
  });

  it('a model outside the tables is left to the extender (no model term), its memory still translated', async () => {
    const created = await create(optedIn, { annotations: { 'gpu.nvidia.com/model': 'X999', 'gpu.nvidia.com/memory': '40960' } });
    expect(required(created)).toEqual(expectedTerms([], 40960));
  });

  it('a pod naming another scheduler is left alone, and so is a pod without GPUs', async () => {
    const foreign = await create(optedIn, { schedulerName: 'volcano', annotations: { 'gpu.nvidia.com/model': 'H100' } });
    expect(foreign.spec?.schedulerName).toBe('volcano');
    expect(foreign.spec?.affinity).toBeUndefined();
    expect(ourTolerations(foreign)).toEqual([]);
    const cpu = await create(optedIn, { resources: { cpu: '1' } });
    expect(cpu.spec?.schedulerName).toBe('default-scheduler');
    expect(ourTolerations(cpu)).toEqual([]);
  });
});

describe('in a namespace without the label', () => {
  it('a GPU pod with annotations is not changed', async () => {
    const created = await create(other, { annotations: { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '80Gi' } });
    expect(created.spec?.schedulerName).toBe('default-scheduler');
    expect(created.spec?.affinity).toBeUndefined();
    expect(ourTolerations(created)).toEqual([]);
  });
});

const warningOf = async (namespace: string, options: PodOptions): Promise<string> => {
  const response = await core.createNamespacedPodWithHttpInfo({ namespace, body: pod(options), dryRun: 'All' });
  return response.headers.warning ?? '';
};

describe('GPU annotation checks, in every namespace', () => {
  it('a misspelt key draws a warning naming it and the allowed keys; the pod is admitted', async () => {
    const warning = await warningOf(other, { annotations: { 'gpu.nvidia.com/modle': 'H300' } });
    expect(warning).toContain(`Validation failed for ValidatingAdmissionPolicy '${GPU_INTENT_POLICY_NAMES.annotationCheck}'`);
    expect(warning).toContain('unknown GPU annotation gpu.nvidia.com/modle');
    expect(warning).toContain(
      'allowed keys: gpu.nvidia.com/model, gpu.nvidia.com/memory, gpu.nvidia.com/peer-selector, gpu.nvidia.com/group-size, gpu.nvidia.com/do-not-disrupt, gpu.nvidia.com/expected-runtime',
    );
  });

  it('malformed values draw a warning naming the key and the form expected', async () => {
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/memory': 'lots' } })).toContain(
      'gpu.nvidia.com/memory=lots is not memory per GPU: write MiB as a number (81920) or a quantity such as 80Gi',
    );
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/model': 'nvidia|' } })).toContain('gpu.nvidia.com/model=nvidia| names no GPU model');
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/group-size': '0', 'gpu.nvidia.com/peer-selector': 'job=a' } })).toContain(
      'gpu.nvidia.com/group-size=0 is not a whole number of pods from 1 to 100000',
    );
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/group-size': '4' } })).toContain('gpu.nvidia.com/group-size=4 needs gpu.nvidia.com/peer-selector');
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/do-not-disrupt': 'yes' } })).toContain('gpu.nvidia.com/do-not-disrupt=yes is neither true nor false');
    for (const value of ['true', ' True ', 'false']) expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/do-not-disrupt': value } })).toBe('');
    expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/expected-runtime': '6 hours' } })).toContain(
      'gpu.nvidia.com/expected-runtime=6 hours is not a duration such as 90m, 6h or 1h30m; it counts as unknown',
    );
    for (const value of ['90m', '6h', '1h30m', ' 1.5h ', '2d']) expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/expected-runtime': value } })).toBe('');
    // Well-formed values, in every accepted form, draw none.
    for (const memory of ['80Gi', '81920', '40960.5', '42G']) {
      expect(await warningOf(other, { annotations: { 'gpu.nvidia.com/memory': memory, 'gpu.nvidia.com/model': 'a100, H100' } })).toBe('');
    }
  });

  it('in deny mode (admission.gpuAnnotations: deny) the same pod is refused with the same message', async () => {
    const name = GPU_INTENT_POLICY_NAMES.annotationCheck;
    const setActions = async (actions: string[]) => {
      const binding = await admission.readValidatingAdmissionPolicyBinding({ name });
      await admission.replaceValidatingAdmissionPolicyBinding({ name, body: { ...binding, spec: { ...binding.spec, validationActions: actions } } });
    };
    // The binding the app deploys with deny, applied over the harness's.
    const denyBinding = gpuIntentManifests({ ...gpuIntentOptionsOf(APP_CONFIG_DEFAULTS), schedulerName: GPU_SCHEDULER_NAME, annotationCheck: 'deny' }).find((o) => o.kind === 'ValidatingAdmissionPolicyBinding');
    const denyActions = (denyBinding?.spec as { validationActions: string[] }).validationActions;
    await setActions(denyActions);
    try {
      const refusal = await waitFor('the deny binding to be enforced', async () => {
        try {
          await core.createNamespacedPod({ namespace: other, body: pod({ annotations: { 'gpu.nvidia.com/modle': 'H300' } }), dryRun: 'All' });
          return undefined;
        } catch (error) {
          return error;
        }
      }, { timeoutMs: 30_000, intervalMs: 200 });
      expect(kubeStatusCode(refusal)).toBe(422);
      expect(String(refusal)).toContain(`ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: unknown GPU annotation gpu.nvidia.com/modle`);
      // Good annotations still pass.
      await core.createNamespacedPod({ namespace: other, body: pod({ annotations: { 'gpu.nvidia.com/model': 'H100' } }), dryRun: 'All' });
    } finally {
      await setActions(['Warn']);
      await waitFor('pods with unknown keys to be admitted again', async () => {
        try {
          await core.createNamespacedPod({ namespace: other, body: pod({ annotations: { 'gpu.nvidia.com/modle': 'x' } }), dryRun: 'All' });
          return true;
        } catch {
          return undefined;
        }
      }, { timeoutMs: 30_000, intervalMs: 200 });
    }
  });
});

describe('the policies are the deploying identity\'s alone', () => {
  it('no Lambda identity may change or delete them', async () => {
    for (const component of LAMBDA_COMPONENTS) {
      const kc = new KubeConfig();
      kc.loadFromFile(h.info.controlPlane.lambdaKubeconfigs[component]);
      const objects = KubernetesObjectApi.makeApiClient(kc);
      for (const manifest of gpuIntentManifests({ ...gpuIntentOptionsOf(APP_CONFIG_DEFAULTS), schedulerName: GPU_SCHEDULER_NAME })) {
        const error = await objects.delete({ apiVersion: String(manifest.apiVersion), kind: String(manifest.kind), metadata: { name: (manifest.metadata as { name: string }).name } }, undefined, 'All').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect({ component, kind: manifest.kind, status: kubeStatusCode(error) }).toEqual({ component, kind: manifest.kind, status: 403 });
      }
      // Nor take a namespace's opt-in label away.
      const asCore = kc.makeApiClient(CoreV1Api);
      const error = await asCore.readNamespace({ name: optedIn }).then(async (ns) => asCore.replaceNamespace({ name: optedIn, body: ns, dryRun: 'All' })).then(() => undefined, (e: unknown) => e);
      expect({ component, status: kubeStatusCode(error) }).toEqual({ component, status: 403 });
    }
  });
});

describe('the opt-in tolerates every configured GPU taint (admission.gpuTaints)', () => {
  // The deployed opt-in policy built for two taints, under a name and a namespace label of its own so the harness's stays as it is.
  const POLICY = 'e2e-opt-in-two-taints';
  const LABEL = { key: 'e2e.gpu-scheduling/two-taints', value: 'true' };
  const GPU_TAINTS = [
    { key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NO_SCHEDULE' as const },
    { key: 'example.com/gpu-pool', value: 'h100', effect: 'NO_EXECUTE' as const },
  ];
  let namespace = '';
  const objects = KubernetesObjectApi.makeApiClient(h.kubeConfig);
  const renamed = gpuIntentManifests({ ...gpuIntentOptionsOf(APP_CONFIG_DEFAULTS), schedulerName: GPU_SCHEDULER_NAME, gpuTaints: GPU_TAINTS })
    .filter((o) => (o.metadata as { name: string }).name === GPU_INTENT_POLICY_NAMES.optIn)
    .map((o) => ({
      ...o,
      metadata: { ...(o.metadata as Record<string, unknown>), name: POLICY },
      spec: o.kind === 'MutatingAdmissionPolicyBinding' ? { policyName: POLICY, matchResources: { namespaceSelector: { matchLabels: { [LABEL.key]: LABEL.value } } } } : o.spec,
    }));

  beforeAll(async () => {
    const created = await core.createNamespace({ body: { metadata: { generateName: 'admission-two-taints-', labels: { [LABEL.key]: LABEL.value } } } });
    namespace = created.metadata?.name ?? '';
    for (const object of renamed) await objects.create(object as Parameters<typeof objects.create>[0]);
    await waitFor('the two-taint opt-in policy to be applied', async () => {
      const probe = await core.createNamespacedPod({ namespace, body: pod({}), dryRun: 'All' });
      return probe.spec?.schedulerName === GPU_SCHEDULER_NAME ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 200 });
  });

  afterAll(async () => {
    for (const object of [...renamed].reverse()) await objects.delete(object as Parameters<typeof objects.delete>[0]).catch(() => undefined);
    if (namespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it('a GPU pod gets one toleration per taint, and only those it lacks', async () => {
    const bare = await create(namespace, {});
    expect(bare.spec?.tolerations?.filter((t) => t.key !== 'node.kubernetes.io/not-ready' && t.key !== 'node.kubernetes.io/unreachable')).toEqual([
      { key: GPU_NODE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' },
      { key: 'example.com/gpu-pool', operator: 'Exists', effect: 'NoExecute' },
    ]);
    const half = await create(namespace, { tolerations: [{ key: 'example.com/gpu-pool', operator: 'Exists' }] });
    expect(half.spec?.tolerations?.filter((t) => t.key === GPU_NODE_TAINT_KEY || t.key === 'example.com/gpu-pool')).toEqual([
      { key: 'example.com/gpu-pool', operator: 'Exists' },
      { key: GPU_NODE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });
});
