import { GPU_TAINT, CAPACITY_TYPES, nodeLabels, taintList } from './node-group-schema';
import { crossField, integer, list, objectList, oneOf, report, reported, settings, text, wordList, type CheckContext } from './schema-rules';
import { DNS_LABEL } from './value-rules';

/** Karpenter's NodePool `spec.disruption.consolidationPolicy` values. */
export const CONSOLIDATION_POLICIES = ['WhenEmpty', 'WhenEmptyOrUnderutilized'] as const;
/** The disruption reasons a NodePool budget may be limited to. */
export const DISRUPTION_REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;

// The patterns are those of Karpenter's v1 NodePool CRD, so a value that passes
// here is one the API server accepts (test/e2e/karpenter-manifests.test.ts
// creates the NodePools in a dry run against the real CRDs).
const DURATION_OR_NEVER = { pattern: /^(([0-9]+(s|m|h))+|Never)$/, allowed: 'a duration such as 720h, or "Never"' };
const BUDGET_NODES = { pattern: /^((100|[0-9]{1,2})%|[0-9]+)$/, allowed: 'a node count such as "1" or a share such as "10%"' };
const BUDGET_SCHEDULE = {
  pattern: /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))$|^(\S+\s\S+\s\S+\s\S+\s\S+)$/,
  allowed: 'a cron schedule (5 fields, UTC) such as "0 9 * * mon-fri", or @daily, @weekly, …',
};
const BUDGET_DURATION = { pattern: /^(([0-9]+(h|m))|([0-9]+h[0-9]+m))$/, allowed: 'hours and minutes such as 8h or 1h30m' };
const INSTANCE_FAMILY = { pattern: /^[a-z][a-z0-9-]*$/, allowed: 'an EC2 instance family such as g6e or p5' };
const INSTANCE_TYPE = { pattern: /^[a-z][a-z0-9-]*\.[a-z0-9]+$/, allowed: 'an EC2 instance type such as g6e.xlarge' };
const AMI_ALIAS = { pattern: /^al2023@(latest|v\d{8})$/, allowed: 'an AL2023 alias: al2023@latest or al2023@vYYYYMMDD' };
/** A10G, L4 and L40S: the families the default GPU node group's types came from, plus their successors. */
const DEFAULT_INSTANCE_FAMILIES = ['g5', 'g6', 'g6e'];

export const disruptionBudgetSchema = settings({
  nodes: text(BUDGET_NODES),
  reasons: wordList(DISRUPTION_REASONS, 1).optional(),
  schedule: text(BUDGET_SCHEDULE).optional(),
  duration: text(BUDGET_DURATION).optional(),
}).check(crossField((ctx) => {
  const { schedule, duration } = ctx.value;
  if ((schedule === undefined) !== (duration === undefined) && !reported(ctx, 'schedule', 'duration')) {
    report(ctx, [schedule === undefined ? 'schedule' : 'duration'], 'schedule and duration go together: a budget with a schedule applies for duration from each start');
  }
}));

type PoolTypes = { instanceFamilies?: unknown; instanceTypes?: unknown };

function checkFamiliesOrTypes(ctx: CheckContext<PoolTypes>): void {
  if (reported(ctx, 'instanceFamilies', 'instanceTypes')) return;
  const families = Array.isArray(ctx.value.instanceFamilies) ? ctx.value.instanceFamilies : undefined;
  const types = Array.isArray(ctx.value.instanceTypes) ? ctx.value.instanceTypes : [];
  if (families !== undefined && families.length > 0 && types.length > 0) {
    report(ctx, ['instanceTypes'], 'cannot be combined with instanceFamilies; list either families or exact types', types);
  }
  if (families !== undefined && families.length === 0 && types.length === 0) {
    report(ctx, ['instanceFamilies'], 'must list at least one instance family (or give instanceTypes)', families);
  }
}

export const nodePoolSchema = settings({
  name: text(DNS_LABEL)
    .default('gpu')
    .meta({ allowed: 'a DNS-1123 label, unique', description: 'NodePool name (`karpenter.sh/nodepool` label on its nodes).' }),
  instanceFamilies: list(INSTANCE_FAMILY)
    .optional()
    .meta({
      defaultText: `\`${JSON.stringify(DEFAULT_INSTANCE_FAMILIES)}\`; \`[]\` when \`instanceTypes\` is given`,
      description: 'Families the pool may launch (`karpenter.k8s.aws/instance-family`). Only types with NVIDIA GPUs are launched whatever is listed.',
    }),
  instanceTypes: list(INSTANCE_TYPE)
    .default([])
    .meta({ allowed: 'EC2 instance types; not together with `instanceFamilies`', description: 'Exact types instead of families (`node.kubernetes.io/instance-type`).' }),
  capacityTypes: wordList(CAPACITY_TYPES, 1)
    .default(['ON_DEMAND'])
    .meta({ description: '`karpenter.sh/capacity-type`. With both, Karpenter prefers Spot when it is cheaper.' }),
  // Caps the bill: 16 GPUs is two 8-GPU nodes or sixteen single-GPU ones.
  maxGpus: integer(1, 100_000)
    .default(16)
    .meta({ description: '`limits: {nvidia.com/gpu: N}`: the most GPUs the pool\'s nodes hold together; Karpenter launches nothing past it.' }),
  // Moving a pod off an underused GPU node restarts its job; empty nodes only.
  consolidationPolicy: oneOf(CONSOLIDATION_POLICIES)
    .default('WhenEmpty')
    .meta({ description: '`WhenEmpty` removes nodes without pods; `WhenEmptyOrUnderutilized` also evicts pods to pack nodes (restarts GPU jobs).' }),
  consolidateAfter: text(DURATION_OR_NEVER).default('5m').meta({ description: 'How long a node stays empty (or underused) before removal.' }),
  expireAfter: text(DURATION_OR_NEVER).default('720h').meta({ description: 'Node lifetime before Karpenter replaces it (picks up new AMIs).' }),
  disruptionBudgets: objectList(disruptionBudgetSchema)
    .default(() => [{ nodes: '10%' }])
    .meta({
      allowed:
        'list of `{nodes, reasons?, schedule?, duration?}`: `nodes` a count (`"1"`) or share (`"10%"`); `reasons` of `Underutilized`, `Empty`, `Drifted`; `schedule` (cron, UTC) and `duration` (`8h`, `1h30m`) together',
      description: 'How many of the pool\'s nodes Karpenter may disrupt at once; e.g. `{nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h"}` freezes working hours.',
    }),
  labels: nodeLabels().default({}).meta({ description: 'Extra node labels. The stack adds `gpu-scheduling/accelerator: nvidia`.' }),
  taints: taintList()
    .default(() => [{ ...GPU_TAINT }])
    .meta({ description: 'Node taints. With `gpuNodeStartupTaint`, the labeler\'s taint is added as a Karpenter `startupTaint`.' }),
})
  .check(crossField(checkFamiliesOrTypes))
  .transform(({ instanceFamilies, capacityTypes, ...pool }) => ({
    ...pool,
    // Listing types replaces the default families rather than intersecting with them.
    instanceFamilies: instanceFamilies ?? (pool.instanceTypes.length > 0 ? [] : [...DEFAULT_INSTANCE_FAMILIES]),
    capacityTypes: [...new Set(capacityTypes)],
  }));

/** `cluster.karpenter`: the EC2NodeClass's AMI and disk, and the GPU NodePools. */
export const karpenterSchema = settings({
  nodePools: objectList(nodePoolSchema, 1)
    .default(() => [nodePoolSchema.parse({ name: 'gpu' })])
    .meta({
      defaultText: 'one pool `gpu`',
      allowed: 'list of ≥ 1 NodePool objects (below), unique names',
      description: 'One Karpenter NodePool each, all on the EC2NodeClass `gpu`.',
    }),
  amiAlias: text(AMI_ALIAS)
    .default('al2023@latest')
    .meta({
      allowed: '`al2023@latest`, `al2023@vYYYYMMDD`',
      description:
        'The EC2NodeClass\'s `amiSelectorTerms` alias. Karpenter picks the NVIDIA variant of AL2023 for NVIDIA instance types. `latest` replaces nodes (within the disruption budgets) when AWS releases a new AMI; a version pins it.',
    }),
  diskSizeGiB: integer(20, 16384).default(100).meta({ description: 'Root volume (gp3, encrypted) of every Karpenter GPU node.' }),
}).check(crossField((ctx) => {
  const pools = ctx.value.nodePools;
  if (!Array.isArray(pools)) return;
  const names = new Set<unknown>();
  for (const [index, pool] of (pools as { name?: unknown }[]).entries()) {
    const name = typeof pool === 'object' && pool !== null ? pool.name : undefined;
    if (typeof name !== 'string') continue;
    if (names.has(name)) report(ctx, ['nodePools', index, 'name'], `"${name}" is already used; NodePool names must be unique`, name);
    names.add(name);
  }
}));
