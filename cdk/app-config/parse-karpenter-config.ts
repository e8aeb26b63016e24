import type { DisruptionBudgetConfig, DisruptionReasonName, KarpenterConfig, KarpenterNodePoolConfig } from './app-config';
import { CAPACITY_TYPES, CONSOLIDATION_POLICIES, DISRUPTION_REASONS } from './app-config';
import { APP_CONFIG_DEFAULTS } from './app-config-defaults';
import type { ConfigReader } from './config-reader';
import { parseNodeLabels, parseTaint } from './node-rules';

const DEFAULTS = APP_CONFIG_DEFAULTS.cluster.karpenter;

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
const POOL_NAME = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, allowed: 'a DNS-1123 label (lowercase letters, digits, "-", at most 63)' };
const AMI_ALIAS = { pattern: /^al2023@(latest|v\d{8})$/, allowed: 'an AL2023 alias: al2023@latest or al2023@vYYYYMMDD' };

/** `cluster.karpenter`: the EC2NodeClass's AMI and disk, and the GPU NodePools. */
export function parseKarpenter(reader: ConfigReader): KarpenterConfig {
  const nodePools = reader.objectList('nodePools', { minItems: 1, fallback: DEFAULTS.nodePools }).map(parseNodePool);
  const names = new Set<string>();
  for (const [index, pool] of nodePools.entries()) {
    if (names.has(pool.name)) reader.report(`nodePools[${index}].name`, `"${pool.name}" is already used; NodePool names must be unique`);
    names.add(pool.name);
  }
  const config: KarpenterConfig = {
    nodePools,
    amiAlias: reader.string('amiAlias', { default: DEFAULTS.amiAlias, ...AMI_ALIAS }),
    diskSizeGiB: reader.integer('diskSizeGiB', { default: DEFAULTS.diskSizeGiB, min: 20, max: 16384 }),
  };
  reader.done();
  return config;
}

function parseNodePool(reader: ConfigReader): KarpenterNodePoolConfig {
  const defaults = DEFAULTS.eachNodePool;
  const instanceTypes = reader.stringList('instanceTypes', { default: defaults.instanceTypes, minItems: 0, ...INSTANCE_TYPE });
  // Listing types replaces the default families rather than intersecting with them.
  const familiesDefault = reader.has('instanceTypes') ? [] : defaults.instanceFamilies;
  const instanceFamilies = reader.stringList('instanceFamilies', { default: familiesDefault, minItems: 0, ...INSTANCE_FAMILY });
  if (instanceFamilies.length > 0 && instanceTypes.length > 0 && !reader.reported('instanceFamilies', 'instanceTypes')) {
    reader.report('instanceTypes', 'cannot be combined with instanceFamilies; list either families or exact types');
  }
  if (instanceFamilies.length === 0 && instanceTypes.length === 0 && !reader.reported('instanceFamilies', 'instanceTypes')) {
    reader.report('instanceFamilies', 'must list at least one instance family (or give instanceTypes)');
  }
  const capacityTypes = reader.stringList('capacityTypes', {
    default: defaults.capacityTypes,
    minItems: 1,
    pattern: new RegExp(`^(${CAPACITY_TYPES.join('|')})$`),
    allowed: CAPACITY_TYPES.map((type) => JSON.stringify(type)).join(' or '),
  }) as KarpenterNodePoolConfig['capacityTypes'];
  const pool: KarpenterNodePoolConfig = {
    name: reader.string('name', { default: defaults.name, ...POOL_NAME }),
    instanceFamilies,
    instanceTypes,
    capacityTypes: [...new Set(capacityTypes)],
    maxGpus: reader.integer('maxGpus', { default: defaults.maxGpus, min: 1, max: 100_000 }),
    consolidationPolicy: reader.oneOf('consolidationPolicy', CONSOLIDATION_POLICIES, defaults.consolidationPolicy),
    consolidateAfter: reader.string('consolidateAfter', { default: defaults.consolidateAfter, ...DURATION_OR_NEVER }),
    expireAfter: reader.string('expireAfter', { default: defaults.expireAfter, ...DURATION_OR_NEVER }),
    disruptionBudgets: reader.objectList('disruptionBudgets', { minItems: 0, fallback: defaults.disruptionBudgets }).map(parseBudget),
    labels: parseNodeLabels(reader, defaults.labels),
    taints: reader.objectList('taints', { minItems: 0, fallback: defaults.taints }).map(parseTaint),
  };
  reader.done();
  return pool;
}

function parseBudget(reader: ConfigReader): DisruptionBudgetConfig {
  const nodes = reader.requiredString('nodes', BUDGET_NODES);
  const reasonsGiven = reader.has('reasons');
  const reasons = reader.stringList('reasons', {
    default: [],
    minItems: 1,
    pattern: new RegExp(`^(${DISRUPTION_REASONS.join('|')})$`),
    allowed: DISRUPTION_REASONS.map((reason) => JSON.stringify(reason)).join(', '),
  }) as DisruptionReasonName[];
  const schedule = reader.optionalString('schedule', BUDGET_SCHEDULE);
  const duration = reader.optionalString('duration', BUDGET_DURATION);
  if ((schedule === undefined) !== (duration === undefined) && !reader.reported('schedule', 'duration')) {
    reader.report(schedule === undefined ? 'schedule' : 'duration', 'schedule and duration go together: a budget with a schedule applies for duration from each start');
  }
  reader.done();
  return { nodes, reasons: reasonsGiven ? reasons : undefined, schedule, duration };
}
