// The demo's cluster and workload, from a JSON or YAML file (docs/local-pipeline.md
// documents the format; demo-scenario.yaml is the built-in one). Validation uses
// the CDK config's schema rules, so mistakes read the same way: the dotted key, what is
// allowed and what was found; unknown keys are errors, not silently ignored.
import { fileURLToPath } from 'node:url';
import { AppConfigError } from '../../cdk/app-config/app-config-error';
import { ConfigFileError, readConfigFile } from '../../cdk/app-config/config-file';
import { parseOrThrow } from '../../cdk/app-config/config-problems';
import { crossField, flag, integer, list, objectList, report, reported, settings, text, type CheckContext } from '../../cdk/app-config/schema-rules';
import { DNS_LABEL } from '../../cdk/app-config/value-rules';

export interface ScenarioNode {
  /** Name the rest of the scenario uses for this node (expectations). */
  id: string;
  instanceType: string;
  zone: string;
  /** Percent; published as Container Insights node_gpu_utilization for the reconciler to read. */
  gpuUtilization: number | undefined;
}

export type JobExpectation = { kind: 'scheduled'; nodes: string[] } | { kind: 'pending'; reason: string } | { kind: 'none' };

export interface ScenarioJob {
  name: string;
  gpus: number;
  model: string | undefined;
  memoryMiB: number | undefined;
  expect: JobExpectation;
}

export interface PodMetrics {
  activeRequests: number;
  /** 0..100; published as the ratio cache_hit_rate (0..1). */
  cacheHitPercent: number;
  responseTimeMs: number;
}

export interface ScenarioService {
  name: string;
  replicas: number;
  scaleTo: number;
  /** One entry per replica, given to the pods in name order. */
  pods: PodMetrics[];
}

/**
 * Scale from zero: one job no node can take, in a namespace opted in to the
 * GPU scheduler, written with its intent only (no scheduler, toleration or
 * affinity); Karpenter is expected to launch `instanceType` for it.
 */
export interface ScenarioScaleUp {
  namespace: string;
  job: Omit<ScenarioJob, 'expect'>;
  instanceType: string;
}

export interface Scenario {
  namespace: string;
  nodes: ScenarioNode[];
  jobs: ScenarioJob[];
  service: ScenarioService | undefined;
  scaleUp: ScenarioScaleUp | undefined;
}

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

/** The label that carries a node's scenario id, so that `kubectl get nodes -L` shows the names the demo's tables use. */
export const DEMO_NODE_ID_LABEL = 'demo.gpu-scheduling/id';

/** The label on the demo's own job pods (its tables explain them). */
export const DEMO_POD_KIND_LABEL = 'demo.gpu-scheduling/kind';

export const DEMO_SCENARIO_FILE = fileURLToPath(new URL('./demo-scenario.yaml', import.meta.url));

const NODE_ID = { pattern: /^[A-Za-z0-9][-A-Za-z0-9_.]{0,62}$/, allowed: 'letters, digits, "-", "_", "." (at most 63)' };
const INSTANCE_TYPE = { pattern: /^[a-z][a-z0-9-]*\.[a-z0-9]+$/, allowed: 'an EC2 instance type such as p4d.24xlarge' };
const ZONE = { pattern: /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, allowed: 'an availability zone such as us-east-1a' };
const MODEL = { pattern: /^\S(.{0,126}\S)?$/, allowed: 'a GPU model or alternatives, e.g. A100 or A100|H100' };
const TEXT = { pattern: /^\S(.{0,498}\S)?$/, allowed: 'non-empty text' };

const nodeSchema = settings({
  id: text(NODE_ID).optional(),
  instanceType: text(INSTANCE_TYPE),
  zone: text(ZONE).default('us-east-1a'),
  gpuUtilization: integer(0, 100).optional(),
});

const jobShape = {
  name: text(DNS_LABEL),
  gpus: integer(1, 64).default(1),
  model: text(MODEL).optional(),
  memoryMiB: integer(1, 4_194_304).optional(),
};

const expectationSchema = settings({
  scheduled: flag().default(false),
  nodes: list(NODE_ID, 1).default([]),
  pending: text(TEXT).optional(),
})
  .check(
    crossField((ctx) => {
      const { scheduled, nodes, pending } = ctx.value;
      if (pending !== undefined && (scheduled === true || (Array.isArray(nodes) && nodes.length > 0))) {
        report(ctx, ['pending'], 'cannot be combined with scheduled or nodes: a job either lands or stays Pending', pending);
      }
    }),
  )
  .transform(({ scheduled, nodes, pending }): JobExpectation =>
    pending !== undefined ? { kind: 'pending', reason: pending } : scheduled || nodes.length > 0 ? { kind: 'scheduled', nodes } : { kind: 'none' },
  );

const podMetricsSchema = settings({
  activeRequests: integer(0, 1_000_000).default(0),
  cacheHitPercent: integer(0, 100).default(0),
  responseTimeMs: integer(0, 3_600_000).default(1000),
});

const serviceSchema = settings({
  name: text(DNS_LABEL),
  replicas: integer(2, 50).default(6),
  scaleTo: integer(0, 49).optional(),
  pods: objectList(podMetricsSchema).default([]),
})
  .check(
    crossField((ctx) => {
      const { replicas, scaleTo, pods } = ctx.value;
      if (typeof replicas !== 'number' || reported(ctx, 'replicas')) return;
      if (scaleTo !== undefined && !reported(ctx, 'scaleTo') && (scaleTo < 0 || scaleTo > replicas - 1)) {
        report(ctx, ['scaleTo'], `must be an integer from 0 to ${replicas - 1}, got ${scaleTo}`, scaleTo);
      }
      if (!Array.isArray(pods) || reported(ctx, 'pods')) return;
      if (pods.length < replicas) report(ctx, ['pods'], `must be a list of at least ${replicas} object(s), got ${JSON.stringify(pods)}`, pods);
      else if (pods.length > replicas) report(ctx, ['pods'], `must have exactly one entry per replica (${replicas}), got ${pods.length}`, pods);
    }),
  )
  .transform((service) => ({ ...service, scaleTo: service.scaleTo ?? Math.floor(service.replicas / 2) }));

const scaleUpSchema = settings({
  namespace: text(DNS_LABEL),
  job: settings(jobShape),
  instanceType: text({ ...INSTANCE_TYPE, allowed: `${INSTANCE_TYPE.allowed}: the type Karpenter is expected to launch` }),
});

type Named = { readonly name?: unknown };

function usedTwice(ctx: CheckContext<unknown>, key: string, items: unknown, field: 'id' | 'name'): Set<unknown> {
  const seen = new Set<unknown>();
  if (!Array.isArray(items)) return seen;
  for (const [index, item] of (items as Record<string, unknown>[]).entries()) {
    const value = typeof item === 'object' && item !== null ? item[field] : undefined;
    if (value === undefined) continue;
    if (seen.has(value)) report(ctx, [key, index, field], `${JSON.stringify(value)} is used twice`, value);
    seen.add(value);
  }
  return seen;
}

const scenarioSchema = settings({
  namespace: text(DNS_LABEL).default('demo'),
  nodes: objectList(nodeSchema, 1).transform((nodes) => nodes.map((node, index) => ({ ...node, id: node.id ?? `node-${index + 1}` }))),
  jobs: objectList(settings({ ...jobShape, expect: expectationSchema.prefault({}) })).default([]),
  service: serviceSchema.optional(),
  scaleUp: scaleUpSchema.optional(),
})
  .check(
    crossField((ctx) => {
      const { namespace, nodes, jobs, service, scaleUp } = ctx.value;
      const ids = usedTwice(ctx, 'nodes', nodes, 'id');
      const names = usedTwice(ctx, 'jobs', jobs, 'name');
      if (Array.isArray(jobs) && !reported(ctx, 'nodes')) {
        for (const [index, job] of (jobs as { expect?: unknown }[]).entries()) {
          const expected = typeof job === 'object' && job !== null ? job.expect : undefined;
          const unknown = expected !== null && typeof expected === 'object' && 'nodes' in expected && Array.isArray(expected.nodes) ? expected.nodes.find((id) => !ids.has(id)) : undefined;
          if (unknown !== undefined) {
            report(ctx, ['jobs', index, 'expect', 'nodes'], `names node ${JSON.stringify(unknown)}, which is not in nodes[] (ids: ${[...ids].join(', ')})`, unknown);
          }
        }
      }
      const serviceName = (service as Named | undefined)?.name;
      if (serviceName !== undefined && names.has(serviceName)) report(ctx, ['service', 'name'], `${JSON.stringify(serviceName)} is also a job name`, serviceName);
      const scaleUpNamespace = (scaleUp as { namespace?: unknown } | undefined)?.namespace;
      if (scaleUpNamespace !== undefined && scaleUpNamespace === namespace) {
        report(ctx, ['scaleUp', 'namespace'], 'must differ from namespace: it is the one opted in by its label', scaleUpNamespace);
      }
    }),
  );

/** Validates a parsed scenario document. Throws ScenarioError naming every bad key. */
export function parseScenario(raw: unknown, source: string): Scenario {
  try {
    const scenario = parseOrThrow(scenarioSchema, raw);
    return {
      namespace: scenario.namespace,
      nodes: scenario.nodes.map((node) => ({ id: node.id, instanceType: node.instanceType, zone: node.zone, gpuUtilization: node.gpuUtilization })),
      jobs: scenario.jobs.map(({ expect, ...job }) => ({ ...jobOf(job), expect })),
      service: scenario.service,
      scaleUp: scenario.scaleUp === undefined ? undefined : { ...scenario.scaleUp, job: jobOf(scenario.scaleUp.job) },
    };
  } catch (error) {
    if (error instanceof AppConfigError) throw new ScenarioError(`invalid scenario ${source}: ${error.detail}`);
    throw error;
  }
}

function jobOf(job: { name: string; gpus: number; model?: string | undefined; memoryMiB?: number | undefined }): Omit<ScenarioJob, 'expect'> {
  return { name: job.name, gpus: job.gpus, model: job.model, memoryMiB: job.memoryMiB };
}

/** Reads and validates a scenario file (.json, .yaml or .yml). */
export function loadScenario(path: string): Scenario {
  let raw: unknown;
  try {
    raw = readConfigFile(path, 'scenario');
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    throw new ScenarioError(error.problem === 'extension' ? `--scenario ${error.message}` : error.message);
  }
  return parseScenario(raw, path);
}
