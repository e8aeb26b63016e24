import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_SCENARIO_FILE, loadScenario, parseScenario, ScenarioError } from '../../../../local/start/scenario';

const dir = mkdtempSync(join(tmpdir(), 'scenario-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = { id: 'a', instanceType: 'p4d.24xlarge', zone: 'us-east-1a' };

function problem(raw: unknown): string {
  try {
    parseScenario(raw, 'test.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
  throw new Error('the scenario was accepted');
}

describe('the built-in demo scenario', () => {
  it('parses: a dozen nodes, jobs with expectations that name existing nodes, a scale-up through Karpenter, a service to scale down', () => {
    const scenario = loadScenario(DEMO_SCENARIO_FILE);
    expect(scenario.nodes).toHaveLength(12);
    const ids = new Set(scenario.nodes.map((n) => n.id));
    for (const job of scenario.jobs) {
      if (job.expect.kind === 'scheduled') for (const id of job.expect.nodes) expect(ids.has(id)).toBe(true);
    }
    expect(scenario.jobs.filter((j) => j.expect.kind === 'pending').length).toBeGreaterThanOrEqual(2);
    expect(scenario.service?.pods).toHaveLength(scenario.service?.replicas ?? -1);
    expect(scenario.service?.scaleTo).toBeLessThan(scenario.service?.replicas ?? 0);
    expect(scenario.scaleUp).toMatchObject({ instanceType: 'p5.48xlarge', job: { gpus: 8, model: 'H100' } });
  });
});

describe('parseScenario', () => {
  it('fills defaults', () => {
    const scenario = parseScenario({ nodes: [{ instanceType: 'g5.xlarge' }], jobs: [{ name: 'j' }] }, 'x');
    expect(scenario).toEqual({
      namespace: 'demo',
      nodes: [{ id: 'node-1', instanceType: 'g5.xlarge', zone: 'us-east-1a', gpuUtilization: undefined }],
      jobs: [{ name: 'j', gpus: 1, model: undefined, memoryMiB: undefined, expect: { kind: 'none' } }],
      service: undefined,
      scaleUp: undefined,
    });
  });

  it('reads the scale-up job and the instance type Karpenter should launch; its namespace must be its own', () => {
    const scaleUp = { namespace: 'training', job: { name: 'big', gpus: 8, model: 'H100', memoryMiB: 81920 }, instanceType: 'p5.48xlarge' };
    expect(parseScenario({ nodes: [node], scaleUp }, 'x').scaleUp).toEqual(scaleUp);
    expect(problem({ nodes: [node], scaleUp: { ...scaleUp, instanceType: undefined } })).toContain('scaleUp.instanceType: is required');
    expect(problem({ nodes: [node], scaleUp: { ...scaleUp, namespace: 'demo' } })).toContain('scaleUp.namespace: must differ from namespace');
    expect(problem({ nodes: [node], scaleUp: { ...scaleUp, job: { ...scaleUp.job, gpu: 1 } } })).toContain('scaleUp.job.gpu: unknown key');
  });

  it('names the file and the dotted key of the first mistake', () => {
    expect(problem({ nodes: [node, { instanceType: 'p5', zone: 'us-east-1a' }] })).toBe(
      'invalid scenario test.yaml: nodes[1].instanceType: must be an EC2 instance type such as p4d.24xlarge, got "p5"',
    );
    expect(problem({ nodes: [node], jobs: [{ name: 'j', gpus: 0 }] })).toContain('jobs[0].gpus: must be an integer from 1 to 64, got 0');
    expect(problem({ nodes: [{ ...node, gpuUtilization: 101 }] })).toContain('nodes[0].gpuUtilization: must be an integer from 0 to 100');
  });

  it('rejects unknown keys at every level', () => {
    expect(problem({ nodes: [node], extra: 1 })).toContain('extra: unknown key');
    expect(problem({ nodes: [{ ...node, zonee: 'x' }] })).toContain('nodes[0].zonee: unknown key');
    expect(problem({ nodes: [node], jobs: [{ name: 'j', expect: { node: ['a'] } }] })).toContain('jobs[0].expect.node: unknown key');
  });

  it('requires nodes, and unique node ids and job names', () => {
    expect(problem({})).toContain('nodes: must be a list of at least 1 object(s)');
    expect(problem({ nodes: [node, node] })).toContain('nodes[1].id: "a" is used twice');
    expect(problem({ nodes: [node], jobs: [{ name: 'j' }, { name: 'j' }] })).toContain('jobs[1].name: "j" is used twice');
  });

  it('checks expectations: known node ids, and landing or Pending, not both', () => {
    expect(problem({ nodes: [node], jobs: [{ name: 'j', expect: { nodes: ['b'] } }] })).toContain('jobs[0].expect.nodes: names node "b", which is not in nodes[] (ids: a)');
    expect(problem({ nodes: [node], jobs: [{ name: 'j', expect: { nodes: ['a'], pending: 'x' } }] })).toContain('jobs[0].expect.pending: cannot be combined');
    const ok = parseScenario({ nodes: [node], jobs: [{ name: 'j', expect: { pending: 'Not enough GPUs' } }] }, 'x');
    expect(ok.jobs[0]?.expect).toEqual({ kind: 'pending', reason: 'Not enough GPUs' });
  });

  it('wants one metrics entry per service replica and scaleTo below replicas', () => {
    const pods = [{ activeRequests: 1 }, { activeRequests: 2 }];
    expect(problem({ nodes: [node], service: { name: 'web', replicas: 3, pods } })).toContain('service.pods: must be a list of at least 3 object(s)');
    expect(problem({ nodes: [node], service: { name: 'web', replicas: 2, scaleTo: 2, pods } })).toContain('service.scaleTo: must be an integer from 0 to 1');
    expect(problem({ nodes: [node], service: { name: 'web', replicas: 2, pods: [...pods, {}] } })).toContain('service.pods: must have exactly one entry per replica (2), got 3');
    expect(problem({ nodes: [node], jobs: [{ name: 'web' }], service: { name: 'web', replicas: 2, pods } })).toContain('service.name: "web" is also a job name');
  });
});

describe('loadScenario', () => {
  it('reads JSON and YAML, and says which file is broken and how', () => {
    const json = join(dir, 's.json');
    writeFileSync(json, JSON.stringify({ nodes: [node] }));
    expect(loadScenario(json).nodes[0]?.id).toBe('a');
    const badYaml = join(dir, 'bad.yaml');
    writeFileSync(badYaml, 'nodes: [ {');
    expect(() => loadScenario(badYaml)).toThrow(`scenario ${badYaml} is not valid YAML`);
    expect(() => loadScenario(join(dir, 's.txt'))).toThrow('--scenario must name a .json, .yaml or .yml file');
    expect(() => loadScenario(join(dir, 'missing.yaml'))).toThrow(`cannot read scenario ${join(dir, 'missing.yaml')}`);
  });
});
