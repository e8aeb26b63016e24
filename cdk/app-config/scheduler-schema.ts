import { z } from 'zod';
import { GPU_TAINT, nodeLabels } from './node-group-schema';
import { crossField, describeValue, flag, integer, objectList, oneOf, report, reported, settings, text } from './schema-rules';
import { DNS_LABEL, LABEL_VALUE, TAINT_KEY } from './value-rules';

const CPU = { pattern: /^\d+(\.\d+)?m?$/, allowed: 'a CPU quantity such as 100m or 0.5' };
const MEMORY = { pattern: /^\d+(Ki|Mi|Gi)$/, allowed: 'a memory quantity such as 128Mi' };
/** The release a `v<x.y.z>` tag of an image reference names, if it has one. */
export function imageRelease(image: string): string | undefined {
  return /:v(\d+\.\d+\.\d+)(?:@|$)/.exec(image.slice(image.lastIndexOf('/')))?.[1];
}

/**
 * A container image reference: an optional registry host (with port), a
 * repository path, and a tag, a digest or both. A bare name (an implicit
 * `latest`) is refused: the scheduler must be the release the config names.
 */
const IMAGE_REFERENCE = {
  pattern:
    /^(?:(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/,
  allowed: 'an image reference with a tag or a digest, such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/k8s/kube-scheduler:v1.36.3 or …@sha256:<64 hex digits>',
};
const TAGGED_OR_DIGEST = /(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[a-f0-9]{64})$/;
/** A name of a PriorityClass: a DNS-1123 subdomain. */
const PRIORITY_CLASS = { pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, allowed: 'a PriorityClass name (a DNS-1123 subdomain)' };

/** A pod toleration as Kubernetes writes it (effects in Kubernetes' spelling, not the node groups' EKS one). */
export const tolerationSchema = settings({
  key: text(TAINT_KEY).optional(),
  operator: oneOf(['Exists', 'Equal']).default('Equal'),
  value: text(LABEL_VALUE).optional(),
  effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.int({ error: (issue) => `must be a whole number of seconds, got ${describeValue(issue.input)}` }).min(0).optional(),
}).check(crossField((ctx) => {
  const { key, operator, value, effect, tolerationSeconds } = ctx.value;
  if (operator === 'Exists' && value !== undefined && value !== '' && !reported(ctx, 'value')) {
    report(ctx, ['value'], 'must be left out with operator "Exists" (it tolerates every value of the key)', value);
  }
  if (operator !== 'Exists' && key === undefined && !reported(ctx, 'key')) {
    report(ctx, ['key'], 'is required unless operator is "Exists" (an empty key with "Exists" tolerates every taint)');
  }
  if (tolerationSeconds !== undefined && effect !== 'NoExecute' && !reported(ctx, 'tolerationSeconds')) {
    report(ctx, ['tolerationSeconds'], 'applies only to effect "NoExecute"', tolerationSeconds);
  }
}));

/** How kube-scheduler calls the extender: the settings of its `extenders[]` entry a config may change. */
export const schedulerExtenderSchema = settings({
  // Weight 2: the extender's whole range (9 levels × 2 × 10 = 180 points) stays
  // below a pod's own full preference (in-tree weight 2 × 100); docs/extender.md.
  weight: integer(1, 100)
    .default(2)
    .meta({
      description:
        'Multiplies the extender\'s 0–10 scores (the scheduler also multiplies by 10). Above 2 our score can outvote a pod\'s own preferred affinity and spread; see docs/extender.md, "How our score adds to kube-scheduler\'s".',
    }),
  ignorable: flag()
    .default(false)
    .meta({ description: '`false`: if the extender fails, GPU pods wait (no placement without GPU-aware filtering). `true`: the scheduler carries on without it.' }),
  httpTimeoutSeconds: integer(1, 30)
    .default(5)
    .meta({ description: 'Per-call timeout. The scheduling cycle is serial, so this bounds how long one GPU pod can hold it.' }),
  preempt: flag()
    .default(true)
    .meta({ description: 'Send preemption dry-runs to the extender (otherwise preemption can evict pods on a node the extender then rejects).' }),
});

/** The second kube-scheduler: its Deployment, lease and how it calls the extender. */
export const schedulerSchema = settings({
  name: text(DNS_LABEL)
    .default('gpu-scheduler')
    .meta({
      allowed: 'a DNS-1123 label, not `default-scheduler`',
      description: 'Profile name = the `schedulerName` pods use; also the Deployment, ServiceAccount and ConfigMap name prefix.',
    }),
  namespace: text(DNS_LABEL).default('kube-system').meta({ allowed: 'a DNS-1123 label (must exist)', description: 'Where it runs.' }),
  // Checked and defaulted against kubernetesVersion by the root schema (app-config-schema.ts).
  kubeSchedulerVersion: text({ pattern: /^\d+\.\d+\.\d+$/, allowed: 'a Kubernetes patch release such as 1.36.3' })
    .optional()
    .meta({
      defaultText: '`1.35.4` for 1.35, `1.36.3` for 1.36 (one table, [`cdk/app-config/kubernetes-releases.ts`](../cdk/app-config/kubernetes-releases.ts))',
      allowed: '`<kubernetesVersion>.N`',
      description:
        'Image `registry.k8s.io/kube-scheduler:v<version>`; must be a patch release of `kubernetesVersion`. The 1.36 default is the release the tests build and run (the generated configuration is loaded by that very kube-scheduler); no local binary of 1.35 exists, so the 1.35 scheduler is not run by the tests — they only check that its configuration is the one 1.36.3 loads.',
    }),
  replicas: integer(1, 5).default(2).meta({ description: 'Replicas; one leads, the others wait on the lease. A PodDisruptionBudget keeps one up.' }),
  leaseName: text(DNS_LABEL)
    .optional()
    .meta({ defaultText: '`<name>`', allowed: 'a DNS-1123 label, not `kube-scheduler`', description: 'Its own leader-election lease.' }),
  verbosity: integer(0, 10).default(2).meta({ description: '`--v`.' }),
  image: text(IMAGE_REFERENCE)
    .refine((image) => TAGGED_OR_DIGEST.test(image), { error: (issue) => `must name a tag or a digest (no implicit latest), got ${describeValue(issue.input)}` })
    .optional()
    .meta({
      defaultText: '`registry.k8s.io/kube-scheduler:v<kubeSchedulerVersion>`',
      allowed: 'an image reference with a tag and/or a `@sha256:` digest; a `v<x.y.z>` tag must be a patch release of `kubernetesVersion`',
      description:
        'The kube-scheduler image: a mirror or an ECR pull-through cache of `registry.k8s.io/kube-scheduler` at `kubeSchedulerVersion`. Pin it by digest (`registry.k8s.io/kube-scheduler:v1.36.3@sha256:…`, the digest from `crane digest` or `docker buildx imagetools inspect`): a tag can be pushed again, a digest names one image. The configuration the stack writes is for that version, so the image must be that release.',
    }),
  nodeSelector: nodeLabels()
    .optional()
    .meta({
      defaultText: 'new cluster: the system node group (`gpu-scheduling/node-group: system`); existing cluster: unset',
      description:
        'Node labels the scheduler\'s pods must match. On an existing cluster, name nodes Karpenter does not manage (a managed node group, e.g. `eks.amazonaws.com/nodegroup: system`): on a Karpenter node, consolidation moves the scheduler, and the node must still reach the ALB.',
    }),
  tolerations: objectList(tolerationSchema)
    .default([])
    .meta({
      allowed: 'list of `{key, operator, value, effect, tolerationSeconds}` as in a pod spec (`Exists`/`Equal`; `NoSchedule`, `PreferNoSchedule`, `NoExecute`)',
      description: 'Tolerations of the scheduler\'s pods, for a node group that taints its nodes (e.g. `CriticalAddonsOnly`). Never tolerate the GPU taint: a scheduler pod would keep a GPU node from being removed.',
    }),
  priorityClassName: text(PRIORITY_CLASS)
    .default('system-cluster-critical')
    .meta({ allowed: 'a PriorityClass name (must exist)', description: 'The scheduler pods\' PriorityClass: without a scheduler, no GPU pod is placed.' }),
  resources: settings({
    cpuRequest: text(CPU).default('100m').meta({ description: 'The scheduler container\'s CPU request.' }),
    memoryRequest: text(MEMORY).default('128Mi').meta({ description: 'Its memory request.' }),
    memoryLimit: text(MEMORY).default('512Mi').meta({ description: 'Its memory limit.' }),
  }).prefault({}),
  extender: schedulerExtenderSchema.prefault({}),
})
  .check(crossField((ctx) => {
    if (ctx.value.name === 'default-scheduler') {
      report(ctx, ['name'], 'must not be "default-scheduler": that is the default scheduler\'s profile, and two schedulers would place the same pods', ctx.value.name);
    }
    const tolerations = Array.isArray(ctx.value.tolerations) ? (ctx.value.tolerations as { key?: unknown; operator?: unknown }[]) : [];
    for (const [index, toleration] of tolerations.entries()) {
      if (typeof toleration !== 'object' || toleration === null || reported(ctx, ['tolerations', index])) continue;
      const everyTaint = (toleration.key === undefined || toleration.key === '') && toleration.operator === 'Exists';
      if (everyTaint || toleration.key === GPU_TAINT.key) {
        report(
          ctx,
          ['tolerations', index],
          `must not tolerate ${everyTaint ? 'every taint' : `the GPU taint ${GPU_TAINT.key}`}: a scheduler pod on a GPU node keeps that node from being removed`,
          toleration,
        );
      }
    }
    if (ctx.value.leaseName === 'kube-scheduler') {
      report(ctx, ['leaseName'], 'must not be "kube-scheduler": that lease belongs to the default scheduler', ctx.value.leaseName);
    }
  }))
  .transform(({ leaseName, ...scheduler }) => ({ ...scheduler, leaseName: leaseName ?? scheduler.name }));
