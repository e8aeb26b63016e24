import { describe, expect, it } from 'vitest';
import { parsePodRequirements, podDemand } from '../../../../lambdas/scheduling';
import { gpuPod } from './kube-objects';

describe('podDemand (effective request)', () => {
  it('sums containers, takes the max with init containers, adds sidecars and overhead', () => {
    const pod = {
      spec: {
        containers: [
          { name: 'a', resources: { limits: { 'nvidia.com/gpu': '2' }, requests: { cpu: '500m', memory: '1Gi' } } },
          { name: 'b', resources: { limits: { 'nvidia.com/gpu': '1', cpu: '1' } } },
        ],
        initContainers: [
          { name: 'init', resources: { limits: { 'nvidia.com/gpu': '4' }, requests: { cpu: '100m' } } },
          { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '250m' } } },
        ],
        overhead: { cpu: '50m', memory: '10Mi' },
      },
    };
    const { demand, problem } = podDemand(pod);
    expect(problem).toBeUndefined();
    expect(demand.gpuCount).toBe(4);
    expect(demand.gpuMilli).toBe(1000);
    expect(demand.cpuMilli).toBe(500 + 1000 + 250 + 50);
    expect(demand.memoryBytes).toBe(2 ** 30 + 10 * 2 ** 20);
  });

  it('requests win over limits', () => {
    const pod = { spec: { containers: [{ resources: { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '3' } } }] } };
    expect(podDemand(pod).demand.gpuCount).toBe(1);
  });

  it('reports an unparseable quantity with its field', () => {
    const pod = { spec: { containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] } };
    expect(podDemand(pod).problem).toEqual({ field: 'container main resources nvidia.com/gpu', value: '0.5' });
  });

  it('tolerates garbage shapes', () => {
    for (const pod of [null, 42, 'x', [], { spec: 1 }, { spec: { containers: 'x' } }, { spec: { containers: [null, 1, { resources: 3 }] } }]) {
      expect(podDemand(pod).demand.gpuCount).toBe(0);
    }
  });
});

describe('parsePodRequirements', () => {
  it('reads the seed pod: 2 A100 with 40960 MiB', () => {
    const req = parsePodRequirements(
      gpuPod('train', { gpus: 2, annotations: { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960' } }),
    );
    expect(req.invalid).toBeUndefined();
    expect(req.demand.gpuCount).toBe(2);
    expect(req.gpuModels).toEqual(['A100']);
    expect(req.gpuMemoryMiB).toBe(40960);
    expect(req.namespace).toBe('default');
    expect(req.uid).toBe('uid-train');
  });

  it('accepts alternatives and quantities', () => {
    const req = parsePodRequirements(
      gpuPod('p', { gpus: 1, annotations: { 'gpu.nvidia.com/model': 'a100 | H100,L4', 'gpu.nvidia.com/memory': '40Gi' } }),
    );
    expect(req.gpuModels).toEqual(['a100', 'H100', 'L4']);
    expect(req.gpuModelTokens).toEqual([['a100'], ['h100'], ['l4']]);
    expect(req.gpuMemoryMiB).toBe(40960);
  });

  it('parses the peer selector', () => {
    const req = parsePodRequirements(gpuPod('p', { gpus: 1, annotations: { 'gpu.nvidia.com/peer-selector': 'app=trainer,job=x' } }));
    expect(req.peerSelector).toEqual([
      { key: 'app', operator: 'Equals', values: ['trainer'] },
      { key: 'job', operator: 'Equals', values: ['x'] },
    ]);
  });

  it.each([
    ['gpu.nvidia.com/memory', 'abc', 'is not MiB'],
    ['gpu.nvidia.com/memory', '-5', 'is negative'],
    ['gpu.nvidia.com/memory', '-5Gi', 'is negative'],
    ['gpu.nvidia.com/memory', '40GB', 'is not MiB'],
    ['gpu.nvidia.com/model', ' | ', 'names no model'],
    ['gpu.nvidia.com/model', 'A100|--', 'names no model'],
    ['gpu.nvidia.com/peer-selector', 'app in (x', 'is not a label selector'],
    ['gpu.nvidia.com/peer-selector', '', 'empty selector'],
  ])('invalid %s=%j names the annotation and value', (annotation, value, why) => {
    const req = parsePodRequirements(gpuPod('p', { gpus: 1, annotations: { [annotation]: value } }));
    expect(req.invalid?.field).toBe(annotation);
    expect(req.invalid?.value).toBe(value);
    expect(req.invalid?.detail).toContain(`${annotation}=${JSON.stringify(value)}`);
    expect(req.invalid?.detail).toContain(why);
  });

  it('an invalid GPU quantity makes the pod invalid too', () => {
    const req = parsePodRequirements({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 'two' } } }] } });
    expect(req.invalid?.detail).toContain('"two"');
  });

  it('never throws on garbage', () => {
    for (const pod of [null, undefined, 1, 'pod', [], { metadata: 5 }, { metadata: { annotations: { 'gpu.nvidia.com/memory': 7 } } }]) {
      expect(() => parsePodRequirements(pod)).not.toThrow();
    }
  });
});
