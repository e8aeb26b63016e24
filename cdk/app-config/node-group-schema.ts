import type { z } from 'zod';
import { crossField, integer, list, objectList, oneOf, report, reported, settings, stringMap, text, type CheckContext, type TextRule } from './schema-rules';
import { GPU_INSTANCE_TYPE, INSTANCE_TYPE, LABEL_KEY, LABEL_VALUE, TAINT_KEY } from './value-rules';

// What node groups and Karpenter NodePools put on their nodes (labels,
// taints), and the managed node groups of a new cluster.

export const TAINT_EFFECTS = ['NO_SCHEDULE', 'PREFER_NO_SCHEDULE', 'NO_EXECUTE'] as const;
export const CAPACITY_TYPES = ['ON_DEMAND', 'SPOT'] as const;

export const taintSchema = settings({
  key: text(TAINT_KEY),
  value: text(LABEL_VALUE).default(''),
  effect: oneOf(TAINT_EFFECTS).default('NO_SCHEDULE'),
});

/** Keeps pods that do not tolerate it (everything but GPU workloads) off GPU nodes. */
export const GPU_TAINT: z.output<typeof taintSchema> = { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' };

export function nodeLabels() {
  return stringMap({ key: LABEL_KEY, value: LABEL_VALUE, maxValueLength: 63 });
}

export function taintList() {
  return objectList(taintSchema).meta({ allowed: 'list of `{key, value, effect}`, effect `NO_SCHEDULE`, `PREFER_NO_SCHEDULE`, `NO_EXECUTE`; `[]` for none' });
}

interface NodeGroupDefaults {
  readonly instanceTypes: readonly [string, ...string[]];
  readonly minSize: number;
  readonly maxSize: number;
  readonly desiredSize: number;
  readonly diskSizeGiB: number;
  readonly taints: readonly z.output<typeof taintSchema>[];
}

/** The keys of a node group but its name (the system group's is fixed). */
function nodeGroupShape(defaults: NodeGroupDefaults, instanceType: TextRule, instanceTypesAllowed: string) {
  return {
    instanceTypes: list(instanceType, 1)
      .default([...defaults.instanceTypes])
      .meta({ allowed: instanceTypesAllowed, description: 'Instance types of the group.' }),
    minSize: integer(0, 450).default(defaults.minSize).meta({ description: 'Fewest nodes.' }),
    maxSize: integer(1, 450).default(defaults.maxSize).meta({ allowed: '1–450, ≥ `minSize`', description: 'Most nodes.' }),
    desiredSize: integer(0, 450)
      .optional()
      .meta({
        defaultText: `\`${defaults.desiredSize}\`, moved to the nearer of \`minSize\` and \`maxSize\` when outside them`,
        allowed: '0–450, from `minSize` to `maxSize`',
        description: 'Nodes at creation (only the initial value if an autoscaler manages the group).',
      }),
    diskSizeGiB: integer(20, 16384).default(defaults.diskSizeGiB).meta({ description: 'Root volume.' }),
    capacityType: oneOf(CAPACITY_TYPES).default('ON_DEMAND').meta({ description: 'On-Demand or Spot instances.' }),
    labels: nodeLabels()
      .default({})
      .meta({
        description:
          'Extra node labels. The stack adds `gpu-scheduling/node-group: <name>`, and on GPU groups `gpu-scheduling/accelerator: nvidia` (the device plugin selects on it).',
      }),
    taints: taintList()
      .default(() => defaults.taints.map((taint) => ({ ...taint })))
      .meta({ description: 'Keeps non-GPU pods off GPU nodes; GPU pods need a matching toleration.' }),
  };
}

type Sizes = { minSize: unknown; maxSize: unknown; desiredSize?: unknown };

function checkSizes(ctx: CheckContext<Sizes>): void {
  const { minSize, maxSize, desiredSize } = ctx.value;
  if (typeof minSize !== 'number' || typeof maxSize !== 'number' || reported(ctx, 'minSize', 'maxSize')) return;
  if (maxSize < minSize) {
    report(ctx, ['maxSize'], `must be at least minSize (${minSize}), got ${maxSize}`, maxSize);
    return;
  }
  if (typeof desiredSize === 'number' && !reported(ctx, 'desiredSize') && (desiredSize < minSize || desiredSize > maxSize)) {
    report(ctx, ['desiredSize'], `must be from minSize (${minSize}) to maxSize (${maxSize}), got ${desiredSize}`, desiredSize);
  }
}

function withDesiredSize<T extends { minSize: number; maxSize: number; desiredSize?: number | undefined }>(defaultDesired: number) {
  return (group: T) => ({ ...group, desiredSize: group.desiredSize ?? Math.min(Math.max(defaultDesired, group.minSize), group.maxSize) });
}

const SYSTEM_GROUP_DEFAULTS: NodeGroupDefaults = { instanceTypes: ['m7i.large'], minSize: 2, maxSize: 3, desiredSize: 2, diskSizeGiB: 50, taints: [] };
const GPU_GROUP_DEFAULTS: NodeGroupDefaults = { instanceTypes: ['g5.xlarge'], minSize: 0, maxSize: 4, desiredSize: 1, diskSizeGiB: 100, taints: [GPU_TAINT] };

/** The system node group: CoreDNS, the second scheduler, add-on controllers. Its name is fixed. */
export const systemNodeGroupSchema = settings(nodeGroupShape(SYSTEM_GROUP_DEFAULTS, INSTANCE_TYPE, 'any x86_64 instance type (`family.size`)'))
  .check(crossField(checkSizes))
  .transform((group) => ({ name: 'system', ...withDesiredSize<typeof group>(SYSTEM_GROUP_DEFAULTS.desiredSize)(group) }));

export const gpuNodeGroupSchema = settings({
  name: text({ pattern: /^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/, allowed: 'a lowercase name (letters, digits, "-", at most 32)' })
    .default('gpu')
    .meta({ allowed: 'lowercase letters, digits, `-` (≤ 32); unique, not `system`', description: 'The group\'s name (`gpu-scheduling/node-group` label on its nodes).' }),
  ...nodeGroupShape(
    GPU_GROUP_DEFAULTS,
    GPU_INSTANCE_TYPE,
    'any type that `DescribeInstanceTypes` reports with NVIDIA GPUs in the target region (fractional-GPU types such as g6f included), all of one CPU architecture per group; synth checks only the form (`family.size`), the deployment checks the rest before it creates the cluster ([below](#gpu-instance-types-ec2-decides-at-deploy-time))',
  ),
})
  .check(crossField(checkSizes))
  .transform(withDesiredSize(GPU_GROUP_DEFAULTS.desiredSize));

/** The GPU groups of a new cluster whose GPU capacity is node groups, when it lists none. */
export function defaultGpuNodeGroups(): z.output<typeof gpuNodeGroupSchema>[] {
  return [gpuNodeGroupSchema.parse({ name: 'gpu', instanceTypes: ['g5.xlarge', 'g5.2xlarge'] })];
}

