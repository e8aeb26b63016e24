import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError, parseKubeList } from '../../../simulator/kube-list-file';
import { explanationLines } from '../../../simulator/placement-table';
import { simulate } from '../../../simulator/simulate';
import { parseSimulatorConfig } from '../../../simulator/simulator-config';

// Each test starts node processes (tsx, esbuild, workers); a loaded machine makes that slow.
const SPAWN_TIMEOUT_MS = 180_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => path.join(here, 'fixtures', name);
const read = (name: string) => readFileSync(fixture(name), 'utf8');
const cli = path.resolve(here, '../../../simulator/cli.ts');

function runCli(args: readonly string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('simulate (library placement of pending pods)', () => {
  const nodes = parseKubeList(read('nodes.json'), 'nodes.json', 'Node');
  const pods = parseKubeList(read('pods.yaml'), 'pods.yaml', 'Pod');

  it('places the gpu-scheduler\'s pending pods in order, counting bound pods as load, skips other schedulers\' pods and explains the unschedulable', () => {
    const result = simulate(nodes, pods);
    expect(result.alreadyBound).toBe(1);
    expect(result.skipped).toEqual({ otherScheduler: { 'default-scheduler': 1 }, gated: 0, boundToUnknownNode: 0 });
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([
      // 2 A100s: the partly used node keeps the empty one whole.
      ['ml/train', 'a100-b'],
      ['ml/infer', 't4'],
      ['default/web', expect.any(String)],
    ]);
    expect(result.placed[0]?.devices).toHaveLength(2);
    // kube-scheduler's own GPU count removes every node before the extender is asked.
    expect(result.unschedulable).toEqual([
      {
        pod: 'ml/huge',
        message: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
        filteredByScheduler: [{ plugin: 'NodeResourcesFit', reason: 'Insufficient nvidia.com/gpu', nodes: 3 }],
        rejectedByExtender: [],
      },
    ]);
    // What the node is, beside its name (on EKS an IP-based DNS name): type, GPU model, zone, pool.
    expect(result.nodes.find((n) => n.node === 'a100-b')).toEqual({
      node: 'a100-b', instanceType: 'p4d.24xlarge', gpuModel: 'A100', zone: 'us-east-1b', pool: 'a100', gpus: 8, freeWholeGpus: 1, pods: 2,
    });
    expect(result.nodes.find((n) => n.node === 't4')).toEqual({ node: 't4', gpuModel: 'T4', gpus: expect.any(Number), freeWholeGpus: expect.any(Number), pods: expect.any(Number) });
    expect(result.notModelled.join('\n')).toMatch(/preemption[\s\S]*percentageOfNodesToScore/);
  });

  it('a bound pod of another scheduler is load; a pod affine to a later pod is placed on the pass after it', () => {
    const node = (name: string) => ({ metadata: { name, labels: { 'topology.kubernetes.io/zone': 'z1' } }, status: { allocatable: { cpu: '8', memory: '8Gi', pods: '10' } } });
    const pod = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { requests: { cpu } } }], ...extra },
    });
    // The other scheduler's pod leaves 1 CPU on a.
    const other = pod('other', '7', { schedulerName: 'default-scheduler', nodeName: 'a' });
    const follower = pod('follower', '3', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'leader' } }, topologyKey: 'topology.kubernetes.io/zone' }] } } });
    const result = simulate([node('a'), node('b')], [other, follower, pod('leader', '3')]);
    // The follower comes first and finds no leader; once the leader is bound kube-scheduler tries it again.
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([
      ['default/leader', 'b'],
      ['default/follower', 'b'],
    ]);
    expect(result.unschedulable).toEqual([]);
    expect(result.alreadyBound).toBe(1);
  });

  it('a pod short of resources is not tried again after later binds: its reasons are those of its one try', () => {
    // Room for one pod: tried again after small is bound, big would also be short of a pod slot.
    const node = { metadata: { name: 'a' }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '1' } } };
    const pod = (name: string, cpu: string) => ({ metadata: { name, namespace: 'default' }, spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { requests: { cpu } } }] } });
    const result = simulate([node], [pod('big', '5'), pod('small', '1')]);
    expect(result.unschedulable.map((u) => [u.pod, u.message])).toEqual([['default/big', '0/1 nodes are available: 1 Insufficient cpu.']]);
  });

  it('a pod only anti-affinity and resources keep out is not tried again: a later bind cannot help it, so its message stays its turn\'s', () => {
    const node = (name: string) => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } } });
    const pod = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { requests: { cpu } } }], ...extra },
    });
    const guard = pod('guard', '1', { schedulerName: 'default-scheduler', nodeName: 'a' });
    const filler = pod('filler', '3', { schedulerName: 'default-scheduler', nodeName: 'b' });
    const shy = pod('shy', '2', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'guard' } }, topologyKey: 'kubernetes.io/hostname' }] } } });
    // late fills a: tried again then, shy would find a short of CPU instead.
    const result = simulate([node('a'), node('b')], [guard, filler, shy, pod('late', '2')]);
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([['default/late', 'a']]);
    expect(result.unschedulable).toEqual([
      {
        pod: 'default/shy',
        message: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod anti-affinity rules.",
        filteredByScheduler: [
          { plugin: 'InterPodAffinity', reason: "node(s) didn't match pod anti-affinity rules", nodes: 1 },
          { plugin: 'NodeResourcesFit', reason: 'Insufficient cpu', nodes: 1 },
        ],
        rejectedByExtender: [],
      },
    ]);
  });

  it('a pod tried again after its affinity peer is bound reports its turn\'s message and the retry\'s', () => {
    const node = { metadata: { name: 'a', labels: { 'topology.kubernetes.io/zone': 'z1' } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } } };
    const pod = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { requests: { cpu } } }], ...extra },
    });
    const follower = pod('follower', '3', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'leader' } }, topologyKey: 'topology.kubernetes.io/zone' }] } } });
    const result = simulate([node], [follower, pod('leader', '3')]);
    expect(result.placed.map((p) => p.pod)).toEqual(['default/leader']);
    expect(result.unschedulable.map((u) => [u.message, u.lastMessage])).toEqual([
      ["0/1 nodes are available: 1 node(s) didn't match pod affinity rules.", '0/1 nodes are available: 1 Insufficient cpu.'],
    ]);
  });

  it('reads YAML documents and JSON lists alike; CPU fit and bad annotations are reasons too', () => {
    const yamlNodes = parseKubeList(read('nodes.yaml'), 'nodes.yaml', 'Node');
    const jsonPods = parseKubeList(read('pods.json'), 'pods.json', 'Pod');
    const result = simulate(yamlNodes, jsonPods);
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([['default/cpu-heavy', 'big']]);
    expect(result.unschedulable[0]?.pod).toBe('default/bad-memory');
    expect(result.unschedulable[0]?.rejectedByExtender[0]?.example).toMatch(/Invalid pod: annotation gpu.nvidia.com\/memory="lots"/);
  });

  it('honours and explains Capacity Blocks: a 30-minute job takes the block (reserved first), a 6-hour one is refused there, naming the end', () => {
    const now = Date.parse('2026-06-01T08:00:00Z');
    const blockEnd = Math.floor((now + 3 * 3_600_000) / 1000);
    const gpuNode = (name: string, labels: Record<string, string>) => ({
      metadata: { name, labels: { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '81559', 'gpu.nvidia.com/count': '8', 'node.kubernetes.io/instance-type': 'p5.48xlarge', ...labels } },
      status: { allocatable: { cpu: '96', memory: '1000Gi', pods: '50', 'nvidia.com/gpu': '8' } },
    });
    const block = gpuNode('block', { 'karpenter.sh/capacity-type': 'reserved', 'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block', 'gpu.nvidia.com/capacity-reservation-end': String(blockEnd) });
    const onDemand = gpuNode('on-demand', { 'karpenter.sh/capacity-type': 'on-demand' });
    const job = (name: string, runtime: string) => ({
      metadata: { name, namespace: 'ml', annotations: { 'gpu.nvidia.com/expected-runtime': runtime } },
      spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { requests: { cpu: '1', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } } }] },
    });
    const result = simulate([onDemand, block], [job('short', '30m'), job('long', '6h')], { capacityBlockEnd: { now: () => now } }, { explain: true });
    expect(result.placed.map((p) => [p.pod, p.node])).toEqual([
      ['ml/short', 'block'],
      ['ml/long', 'on-demand'],
    ]);
    const long = result.placed.find((p) => p.pod === 'ml/long');
    expect(long?.refusedByExtender?.map((r) => r.code)).toEqual(['CapacityBlockEnding']);
    expect(long?.refusedByExtender?.[0]?.example).toContain(new Date(blockEnd * 1000).toISOString().replace('.000Z', 'Z'));
    expect(long === undefined ? [] : explanationLines(long).at(-1)).toMatch(/refused by the extender: 1 × CapacityBlockEnding/);
  });

  it('rejects inputs that are not Kubernetes lists of the expected kind', () => {
    expect(() => parseKubeList('{"items": 3}', 'x.json', 'Node')).toThrow(/"items" must be an array/);
    expect(() => parseKubeList('{"kind":"Pod","metadata":{"name":"p"}}', 'x.json', 'Node')).toThrow(/is a Pod, expected Node/);
    expect(() => parseKubeList('[{"metadata":{}}]', 'x.json', 'Node')).toThrow(/item 0 has no metadata.name/);
    expect(() => parseKubeList('{ "items": [', 'x.json', 'Node')).toThrow(InputError);
  });

  it('config files set weights and GpuScore options and reject unknown keys and bad values', () => {
    expect(parseSimulatorConfig(read('weights.yaml'), 'weights.yaml')).toEqual({
      weights: { GpuScore: 1, Fragmentation: 0 },
      gpuScore: { fitWeight: 1, utilizationWeight: 0 },
    });
    expect(() => parseSimulatorConfig('weights: {Packing: 1}', 'c.yaml')).toThrow(/unknown key "Packing"/);
    expect(() => parseSimulatorConfig('weights: {GpuScore: -1}', 'c.yaml')).toThrow(/GpuScore must be a number from 0 to 1000/);
    expect(() => parseSimulatorConfig('profile: x', 'c.yaml')).toThrow(/unknown key "profile"/);
  });
});

describe('npm run simulate (CLI)', () => {
  it('prints the placement table and per-node reasons for unschedulable pods', () => {
    const { code, stdout } = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml')]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/3 placed, 1 unschedulable, 1 already bound .*skipped \(not placed\): 1 pending for default-scheduler/);
    expect(stdout).toMatch(/POD\s+NODE\s+TYPE\s+GPU MODEL\s+ZONE\s+POOL\s+TOTAL/);
    expect(stdout).toMatch(/ml\/train\s+a100-b\s+p4d\.24xlarge\s+A100\s+us-east-1b\s+a100\s+\d+/);
    expect(stdout).toMatch(/NODE\s+TYPE\s+GPU MODEL\s+ZONE\s+POOL\s+GPUS\s+FREE WHOLE GPUS\s+PODS\n(.*\n)*a100-b\s+p4d\.24xlarge\s+A100\s+us-east-1b\s+a100\s+8\s+1\s+2/);
    expect(stdout).toContain('UNSCHEDULABLE ml/huge\n  kube-scheduler says: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.');
    expect(stdout).toContain("1. kube-scheduler's own filters removed 3 of 3 nodes before the extender was asked:\n     3 × NodeResourcesFit: Insufficient nvidia.com/gpu");
    expect(stdout).toMatch(/stranded = the part of idle/);
    expect(stdout).toMatch(/Not modelled on the fast path:\n {2}- preemption/);
  }, SPAWN_TIMEOUT_MS);

  it('--explain shows each plugin\'s score on the chosen node and the runner-up, and calls ties ties', () => {
    const nodes = parseKubeList(read('nodes.json'), 'nodes.json', 'Node');
    const pods = parseKubeList(read('pods.yaml'), 'pods.yaml', 'Pod');
    const result = simulate(nodes, pods, {}, { explain: true });
    const train = result.placed.find((p) => p.pod === 'ml/train');
    // The two A100 nodes: the chosen one, with its total matching the placement score, beats the other.
    expect(train?.explanation?.best).toMatchObject({ node: 'a100-b', total: train?.score });
    expect(train?.explanation?.runnerUp?.node).toBe('a100-a');
    expect(train?.tiedWith).toEqual([]);
    expect(train?.explanation?.margin).toBeGreaterThan(0);
    // kube-scheduler's sum: TaintToleration 100 × 3 on both, the extender's level × 2 × 10.
    expect(train?.explanation?.best.points).toEqual({ TaintToleration: 300, extender: 200 });
    expect(Object.keys(train?.explanation?.best.extenderPlugins ?? {})).toEqual(expect.arrayContaining(['Fragmentation', 'GpuScore']));
    expect(simulate(nodes, pods).placed.every((p) => p.explanation === undefined)).toBe(true);

    const { code, stdout } = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml'), '--explain']);
    expect(code).toBe(0);
    expect(stdout).toContain("WHY (kube-scheduler's total");
    expect(stdout).toMatch(/ml\/train → a100-b\n\s+chosen a100-b: total 500 \(TaintToleration 300, extender 200; .*Fragmentation [\d.]+.*\)\n\s+runner-up a100-a: total \d+ .*\n\s+margin \d+ points/);
  }, SPAWN_TIMEOUT_MS);

  it('--json prints machine-readable results; --weights changes the profile', () => {
    const { code, stdout } = runCli(['--nodes', fixture('nodes.yaml'), '--pods', fixture('pods.json'), '--json', '--weights', fixture('weights.yaml')]);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { placed: { pod: string; node: string }[]; unschedulable: { pod: string }[] };
    expect(parsed.placed).toEqual([expect.objectContaining({ pod: 'default/cpu-heavy', node: 'big' })]);
    expect(parsed.unschedulable.map((u) => u.pod)).toEqual(['default/bad-memory']);
  }, SPAWN_TIMEOUT_MS);

  it('--report writes the what-if report as one HTML file and names it on stderr, stdout unchanged', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'simulate-'));
    const file = path.join(dir, 'out', 'report.html');
    const { code, stdout, stderr } = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml'), '--json', '--report', file]);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toHaveProperty('placed');
    expect(stderr).toContain(`report: ${file}`);
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>[\s\S]*data-pod="ml\/huge" data-state="unschedulable"[\s\S]*data-node="a100-b"[\s\S]*<\/html>\n$/);
    const empty = runCli(['--nodes', fixture('nodes.json'), '--pods', fixture('pods.yaml'), '--report', ' ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--report needs a file path/);
  }, SPAWN_TIMEOUT_MS);

  it('fails with a clear message on malformed input, a missing file and missing flags', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'simulate-'));
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"items": [');
    const bad = runCli(['--nodes', broken, '--pods', fixture('pods.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken.json: not valid JSON or YAML/);
    const missing = runCli(['--nodes', path.join(dir, 'nope.json'), '--pods', fixture('pods.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope.json/);
    const usage = runCli(['--nodes', fixture('nodes.json')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--nodes and --pods are required/);
    // --config names the CDK app's config file elsewhere; here the weights file is --weights.
    for (const args of [['--config', fixture('weights.yaml')], [`--config=${fixture('weights.yaml')}`]]) {
      const renamed = runCli(['--nodes', fixture('nodes.yaml'), '--pods', fixture('pods.json'), ...args]);
      expect(renamed.code).toBe(2);
      expect(renamed.stderr).toMatch(/--config is not an option of simulate: the scoring weights file is --weights <file>/);
    }
  }, SPAWN_TIMEOUT_MS);
});
