import { crossField, flag, integer, report, settings, text } from './schema-rules';
import { DNS_LABEL } from './value-rules';

const CPU = { pattern: /^\d+(\.\d+)?m?$/, allowed: 'a CPU quantity such as 100m or 0.5' };
const MEMORY = { pattern: /^\d+(Ki|Mi|Gi)$/, allowed: 'a memory quantity such as 128Mi' };
/** registry[:port]/path[:tag][@sha256:digest], as the OCI distribution spec names an image. */
const IMAGE_REFERENCE = /^[a-z0-9]+([.-][a-z0-9]+)*(:\d+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)+(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;

/** The release a `v<x.y.z>` tag of an image reference names, if it has one. */
export function imageRelease(image: string): string | undefined {
  return /:v(\d+\.\d+\.\d+)(?:@|$)/.exec(image.slice(image.lastIndexOf('/')))?.[1];
}

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
  // A full reference, so that a digest can pin it: a tag can be pushed again, a digest names one image.
  image: text({ pattern: IMAGE_REFERENCE, allowed: 'an image reference such as registry.k8s.io/kube-scheduler:v1.36.3, with or without @sha256:<64 hex digits>' })
    .optional()
    .meta({
      defaultText: '`registry.k8s.io/kube-scheduler:v<kubeSchedulerVersion>`',
      allowed: 'an image reference; a `v<x.y.z>` tag must be a patch release of `kubernetesVersion`',
      description:
        'The kube-scheduler image. Pin it by digest (`registry.k8s.io/kube-scheduler:v1.36.3@sha256:…`, the digest from `crane digest` or `docker buildx imagetools inspect`), or name your registry\'s mirror of it; the configuration the stack writes is the one `kubeSchedulerVersion` loads.',
    }),
  replicas: integer(1, 5).default(2).meta({ description: 'Replicas; one leads, the others wait on the lease. A PodDisruptionBudget keeps one up.' }),
  leaseName: text(DNS_LABEL)
    .optional()
    .meta({ defaultText: '`<name>`', allowed: 'a DNS-1123 label, not `kube-scheduler`', description: 'Its own leader-election lease.' }),
  verbosity: integer(0, 10).default(2).meta({ description: '`--v`.' }),
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
    if (ctx.value.leaseName === 'kube-scheduler') {
      report(ctx, ['leaseName'], 'must not be "kube-scheduler": that lease belongs to the default scheduler', ctx.value.leaseName);
    }
  }))
  .transform(({ leaseName, ...scheduler }) => ({ ...scheduler, leaseName: leaseName ?? scheduler.name }));
