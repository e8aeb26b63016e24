// The demo's cluster and workload, from a JSON or YAML file (docs/local-pipeline.md
// documents the format; demo-scenario.yaml is the built-in one). Validation uses
// the CDK config's reader, so mistakes read the same way: the dotted key, what is
// allowed and what was found; unknown keys are errors, not silently ignored.
import { fileURLToPath } from 'node:url';
import { ConfigFileError, readConfigFile } from '../../cdk/app-config/config-file';
import { AppConfigError, ConfigReader } from '../../cdk/app-config/config-reader';

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

const DNS_LABEL = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, allowed: 'a DNS-1123 label (lowercase letters, digits, "-", at most 63)' };
const NODE_ID = { pattern: /^[A-Za-z0-9][-A-Za-z0-9_.]{0,62}$/, allowed: 'letters, digits, "-", "_", "." (at most 63)' };
const INSTANCE_TYPE = { pattern: /^[a-z][a-z0-9-]*\.[a-z0-9]+$/, allowed: 'an EC2 instance type such as p4d.24xlarge' };
const ZONE = { pattern: /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, allowed: 'an availability zone such as us-east-1a' };
const MODEL = { pattern: /^\S(.{0,126}\S)?$/, allowed: 'a GPU model or alternatives, e.g. A100 or A100|H100' };
const TEXT = { pattern: /^\S(.{0,498}\S)?$/, allowed: 'non-empty text' };

function parseNode(reader: ConfigReader, index: number): ScenarioNode {
  const node: ScenarioNode = {
    id: reader.string('id', { default: `node-${index + 1}`, ...NODE_ID }),
    instanceType: reader.optionalString('instanceType', INSTANCE_TYPE) ?? reader.fail('instanceType', 'is required'),
    zone: reader.string('zone', { default: 'us-east-1a', ...ZONE }),
    gpuUtilization: reader.optionalInteger('gpuUtilization', { min: 0, max: 100 }),
  };
  reader.done();
  return node;
}

function parseExpectation(reader: ConfigReader, nodeIds: ReadonlySet<string>): JobExpectation {
  const scheduled = reader.boolean('scheduled', false);
  const nodes = reader.stringList('nodes', { default: [], minItems: 1, ...NODE_ID });
  const pending = reader.optionalString('pending', TEXT);
  reader.done();
  const unknown = nodes.find((id) => !nodeIds.has(id));
  if (unknown !== undefined) reader.fail('nodes', `names node ${JSON.stringify(unknown)}, which is not in nodes[] (ids: ${[...nodeIds].join(', ')})`);
  if (pending !== undefined) {
    if (scheduled || nodes.length > 0) reader.fail('pending', 'cannot be combined with scheduled or nodes: a job either lands or stays Pending');
    return { kind: 'pending', reason: pending };
  }
  return scheduled || nodes.length > 0 ? { kind: 'scheduled', nodes } : { kind: 'none' };
}

function parseJob(reader: ConfigReader, nodeIds: ReadonlySet<string>): ScenarioJob {
  const job: ScenarioJob = {
    name: reader.optionalString('name', DNS_LABEL) ?? reader.fail('name', 'is required'),
    gpus: reader.integer('gpus', { default: 1, min: 1, max: 64 }),
    model: reader.optionalString('model', MODEL),
    memoryMiB: reader.optionalInteger('memoryMiB', { min: 1, max: 4_194_304 }),
    expect: parseExpectation(reader.child('expect'), nodeIds),
  };
  reader.done();
  return job;
}

function parseScaleUp(reader: ConfigReader): ScenarioScaleUp {
  const namespace = reader.optionalString('namespace', DNS_LABEL) ?? reader.fail('namespace', 'is required');
  const jobReader = reader.child('job');
  const job = {
    name: jobReader.optionalString('name', DNS_LABEL) ?? jobReader.fail('name', 'is required'),
    gpus: jobReader.integer('gpus', { default: 1, min: 1, max: 64 }),
    model: jobReader.optionalString('model', MODEL),
    memoryMiB: jobReader.optionalInteger('memoryMiB', { min: 1, max: 4_194_304 }),
  };
  jobReader.done();
  const instanceType = reader.optionalString('instanceType', INSTANCE_TYPE) ?? reader.fail('instanceType', 'is required: the type Karpenter is expected to launch');
  reader.done();
  return { namespace, job, instanceType };
}

function parseService(reader: ConfigReader): ScenarioService {
  const name = reader.optionalString('name', DNS_LABEL) ?? reader.fail('name', 'is required');
  const replicas = reader.integer('replicas', { default: 6, min: 2, max: 50 });
  const scaleTo = reader.integer('scaleTo', { default: Math.floor(replicas / 2), min: 0, max: replicas - 1 });
  const pods = reader.objectList('pods', { minItems: replicas, fallback: [] }).map((item) => {
    const metrics: PodMetrics = {
      activeRequests: item.integer('activeRequests', { default: 0, min: 0, max: 1_000_000 }),
      cacheHitPercent: item.integer('cacheHitPercent', { default: 0, min: 0, max: 100 }),
      responseTimeMs: item.integer('responseTimeMs', { default: 1000, min: 0, max: 3_600_000 }),
    };
    item.done();
    return metrics;
  });
  if (pods.length !== replicas) reader.fail('pods', `must have exactly one entry per replica (${replicas}), got ${pods.length}`);
  reader.done();
  return { name, replicas, scaleTo, pods };
}

/** Validates a parsed scenario document. Throws ScenarioError naming the bad keys. */
export function parseScenario(raw: unknown, source: string): Scenario {
  try {
    const root = new ConfigReader(raw, '');
    const namespace = root.string('namespace', { default: 'demo', ...DNS_LABEL });
    const nodes = root.objectList('nodes', { minItems: 1, fallback: [] }).map(parseNode);
    const ids = new Set<string>();
    nodes.forEach((node, index) => {
      if (ids.has(node.id)) throw new AppConfigError(`nodes[${index}].id`, `${JSON.stringify(node.id)} is used twice`);
      ids.add(node.id);
    });
    const jobs = root.objectList('jobs', { minItems: 0, fallback: [] }).map((reader) => parseJob(reader, ids));
    const names = new Set<string>();
    jobs.forEach((job, index) => {
      if (names.has(job.name)) throw new AppConfigError(`jobs[${index}].name`, `${JSON.stringify(job.name)} is used twice`);
      names.add(job.name);
    });
    const hasService = root.has('service');
    const serviceReader = root.child('service');
    const service = hasService ? parseService(serviceReader) : undefined;
    if (service && names.has(service.name)) throw new AppConfigError('service.name', `${JSON.stringify(service.name)} is also a job name`);
    const scaleUp = root.has('scaleUp') ? parseScaleUp(root.child('scaleUp')) : undefined;
    if (scaleUp && scaleUp.namespace === namespace) throw new AppConfigError('scaleUp.namespace', 'must differ from namespace: it is the one opted in by its label');
    root.done();
    root.assertValid();
    return { namespace, nodes, jobs, service, scaleUp };
  } catch (error) {
    if (error instanceof AppConfigError) throw new ScenarioError(`invalid scenario ${source}: ${error.detail}`);
    throw error;
  }
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
