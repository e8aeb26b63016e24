import { describe, expect, it } from 'vitest';
import { AFFINITY_LABELLERS, knownModelValues, knownModelValuesCel, memoryBandsCel } from '../../../../../cdk/lib/admission/gpu-intent-cel';
import { GPU_INTENT_POLICY_NAMES, gpuIntentManifests, gpuIntentOptionsOf, gpuTolerations, NAMESPACE_OPT_IN } from '../../../../../cdk/lib/admission/gpu-intent-policies';
import { GPU_MODEL_SPELLINGS, modelLabelValues } from '../../../../../lambdas/scheduling/gpu-label-values';
import { memoryBandsByModel } from '../../../../../lambdas/scheduling/gpu-memory-thresholds';
import { KARPENTER_LABEL } from '../../../../../lambdas/scheduling/keys';
import { GPU_TAINT } from '../../../../../cdk/app-config/node-group-schema';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';

type Manifest = { kind: string; metadata: { name: string }; spec: Record<string, unknown> };
const manifests = (annotationCheck: 'warn' | 'deny') => gpuIntentManifests({ schedulerName: 'gpu-scheduler', annotationCheck, kubernetesVersion: '1.36', gpuTaints: [GPU_TAINT] }) as unknown as Manifest[];

describe('the GPU-intent admission policies', () => {
  it('are two mutating policies bound to opted-in namespaces and one validating policy bound everywhere, each with its binding', () => {
    const objects = manifests('warn');
    expect(objects.map((o) => [o.kind, o.metadata.name])).toEqual([
      ['MutatingAdmissionPolicy', GPU_INTENT_POLICY_NAMES.optIn],
      ['MutatingAdmissionPolicyBinding', GPU_INTENT_POLICY_NAMES.optIn],
      ['MutatingAdmissionPolicy', GPU_INTENT_POLICY_NAMES.affinity],
      ['MutatingAdmissionPolicyBinding', GPU_INTENT_POLICY_NAMES.affinity],
      ['ValidatingAdmissionPolicy', GPU_INTENT_POLICY_NAMES.annotationCheck],
      ['ValidatingAdmissionPolicyBinding', GPU_INTENT_POLICY_NAMES.annotationCheck],
    ]);
    for (const binding of objects.filter((o) => o.kind === 'MutatingAdmissionPolicyBinding')) {
      expect(binding.spec).toEqual({ policyName: binding.metadata.name, matchResources: { namespaceSelector: { matchLabels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
    }
    // CREATE only: the reconciler's later pod patches must never be judged or changed here.
    for (const policy of objects.filter((o) => !o.kind.endsWith('Binding'))) {
      expect(policy.spec.matchConstraints).toEqual({ resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] });
      expect(policy.spec.failurePolicy).toBe('Ignore');
    }
  });

  it('on 1.35, where MutatingAdmissionPolicy is beta and off, only the validating policy and its binding', () => {
    const objects = gpuIntentManifests({ schedulerName: 'gpu-scheduler', annotationCheck: 'warn', kubernetesVersion: '1.35', gpuTaints: [GPU_TAINT] }) as unknown as Manifest[];
    expect(objects.map((o) => o.kind)).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
  });

  it('warn or deny, as admission.gpuAnnotations says', () => {
    const actions = (check: 'warn' | 'deny') => manifests(check).find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')?.spec.validationActions;
    expect(actions('warn')).toEqual(['Warn']);
    expect(actions('deny')).toEqual(['Deny']);
  });

  it('name the configured scheduler', () => {
    const text = JSON.stringify(gpuIntentManifests({ schedulerName: 'team-gpu', annotationCheck: 'warn', kubernetesVersion: '1.36', gpuTaints: [GPU_TAINT] }));
    expect(text).toContain('schedulerName: \\"team-gpu\\"');
    expect(text).not.toContain('gpu-scheduler\\"');
  });

  it('put Karpenter\'s keys in the first term', () => {
    expect(AFFINITY_LABELLERS[0]?.modelKey).toBe(KARPENTER_LABEL.gpuName);
    expect(AFFINITY_LABELLERS.map((l) => l.labeller)).toEqual(['karpenter', 'autoMode', 'ours', 'gfd']);
  });
});

describe('the opt-in\'s tolerations follow the GPU taints (admission.gpuTaints)', () => {
  const taintsOf = (raw: unknown) => parseAppConfig(raw).admission.gpuTaints.map((t) => `${t.key}:${t.effect}`);
  const EXISTING = { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['eu-west-1a', 'eu-west-1b'], privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'], clusterSecurityGroupId: 'sg-0123456789abcdef0' } };

  it('default to the taints of the stack\'s NodePools and GPU node groups on a new cluster, nvidia.com/gpu on an existing one', () => {
    expect(taintsOf({})).toEqual(['nvidia.com/gpu:NO_SCHEDULE']);
    const pools = { karpenter: { nodePools: [{ name: 'l40s' }, { name: 'h100', taints: [{ key: 'example.com/h100', value: 'true', effect: 'NO_EXECUTE' }] }] } };
    expect(taintsOf({ cluster: pools })).toEqual(['nvidia.com/gpu:NO_SCHEDULE', 'example.com/h100:NO_EXECUTE']);
    expect(taintsOf({ cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ name: 'a', taints: [] }] } })).toEqual([]);
    expect(taintsOf({ cluster: EXISTING })).toEqual(['nvidia.com/gpu:NO_SCHEDULE']);
  });

  it('a configured list wins, and each key and effect is tolerated once, whatever the value', () => {
    const config = parseAppConfig({ cluster: EXISTING, admission: { gpuTaints: [{ key: 'nvidia.com/gpu' }, { key: 'pool', value: 'a' }, { key: 'pool', value: 'b' }] } });
    expect(gpuTolerations(config.admission.gpuTaints)).toEqual([
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'pool', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const optIn = (gpuIntentManifests(gpuIntentOptionsOf(config)) as unknown as Manifest[]).find((o) => o.kind === 'MutatingAdmissionPolicy' && o.metadata.name === GPU_INTENT_POLICY_NAMES.optIn);
    const missing = (optIn?.spec.variables as { name: string; expression: string }[]).find((v) => v.name === 'missing')?.expression ?? '';
    expect(missing).toContain('{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, {"key": "pool", "operator": "Exists", "effect": "NoSchedule"}');
  });
});

describe('the tables in the CEL are generated from the library', () => {
  it('the memory bands are memoryBandsByModel, literally', () => {
    // The CEL map of lists of integers is JSON as written.
    expect(JSON.parse(memoryBandsCel())).toEqual(JSON.parse(JSON.stringify(memoryBandsByModel())));
  });

  it('every label value of every labeller is in the known-values list, with its tokens', () => {
    const cel = knownModelValuesCel();
    for (const model of Object.keys(GPU_MODEL_SPELLINGS)) {
      for (const { labeller } of AFFINITY_LABELLERS) {
        for (const value of modelLabelValues(model, labeller)) {
          expect(knownModelValues()).toContainEqual(expect.objectContaining({ model, labeller, value }));
          expect(cel).toContain(`"v": dyn(${JSON.stringify(value)})`);
        }
      }
    }
    expect(knownModelValues().find((k) => k.value === 'NVIDIA-H100-80GB-HBM3')?.tokens).toEqual(['h100', '80gb', 'hbm3']);
  });

  it('the affinity policy carries both tables', () => {
    const affinity = manifests('warn').find((o) => o.metadata.name === GPU_INTENT_POLICY_NAMES.affinity);
    const variables = affinity?.spec.variables as { name: string; expression: string }[];
    expect(variables.find((v) => v.name === 'known')?.expression).toBe(knownModelValuesCel());
    expect(variables.find((v) => v.name === 'bands')?.expression).toBe(memoryBandsCel());
  });
});
