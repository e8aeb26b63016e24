import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { podDemand, podRequests, resourceListOf, resourceQuantity } from '../../../../lambdas/scheduling';

// podDemand must count a pod's request exactly as kube-scheduler's
// NodeResourcesFit does (PodRequests / AggregateContainerRequests). Most cases
// below are kube's own: kubernetes/kubernetes
// staging/src/k8s.io/component-helpers/resource/helpers_test.go (commit
// 0085214e563468088672cf8c50849884198a18cc), tests TestPodRequestsAndLimits,
// TestPodResourceRequests and TestPodLevelResourceRequests, case names kept.
// Quantities are theirs too: a bare memory value such as "5" is 5 bytes.
// Cases marked "ours" cover what those tables do not (GPUs, API defaulting).

type List = Readonly<Record<string, string>>;

interface ContainerJson {
  name?: string;
  restartPolicy?: string;
  resources: { requests?: List; limits?: List };
}

const req = (requests: List, name?: string): ContainerJson => ({ ...(name === undefined ? {} : { name }), resources: { requests } });
const lim = (limits: List): ContainerJson => ({ resources: { limits } });
const sidecar = (requests: List, name?: string): ContainerJson => ({ ...req(requests, name), restartPolicy: 'Always' });

interface Case {
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly want: { cpuMilli?: number; memoryBytes?: number; gpuCount?: number };
}

const MI = 2 ** 20;

const CASES: readonly Case[] = [
  // TestPodRequestsAndLimits (one container built by getPod; PodRequests with overhead).
  { name: 'just-overhead', spec: { containers: [req({})], overhead: { cpu: '5', memory: '5' } }, want: { cpuMilli: 5000, memoryBytes: 5 } },
  {
    name: 'req-and-overhead',
    spec: { containers: [req({ cpu: '1', memory: '10' })], overhead: { cpu: '5', memory: '5' } },
    want: { cpuMilli: 6000, memoryBytes: 15 },
  },
  {
    name: 'all-req-lim-and-overhead (requests win over limits)',
    spec: {
      containers: [{ resources: { requests: { cpu: '1', memory: '10' }, limits: { cpu: '2', memory: '12' } } }],
      overhead: { cpu: '5', memory: '5' },
    },
    want: { cpuMilli: 6000, memoryBytes: 15 },
  },
  // The helper test expects no request here because it feeds PodRequests an
  // undefaulted pod; the scheduler only ever sees pods after the API server's
  // SetDefaults_Pod (pkg/apis/core/v1/defaults.go) copied the limit into the request.
  { name: 'just-limit-no-overhead (after API defaulting: request = limit 9)', spec: { containers: [lim({ cpu: '9' })] }, want: { cpuMilli: 9000 } },

  // TestPodResourceRequests (the spec-only cases; the resize ones need pod status).
  { name: 'nil options, larger init container', spec: { initContainers: [req({ cpu: '4' })], containers: [req({ cpu: '1' })] }, want: { cpuMilli: 4000 } },
  {
    name: 'nil options, larger containers',
    spec: { initContainers: [req({ cpu: '2' })], containers: [req({ cpu: '2' }), req({ cpu: '3' })] },
    want: { cpuMilli: 5000 },
  },
  {
    name: 'pod overhead included',
    spec: {
      overhead: { cpu: '1', memory: '1Gi' },
      initContainers: [{ resources: { requests: { cpu: '2' }, limits: { cpu: '2' } } }],
      containers: [req({ cpu: '2' }), req({ cpu: '3' })],
    },
    want: { cpuMilli: 6000, memoryBytes: 2 ** 30 },
  },
  {
    name: 'restartable init container',
    spec: { initContainers: [sidecar({ cpu: '1' }, 'restartable-init-1')], containers: [req({ cpu: '1' }, 'container-1')] },
    want: { cpuMilli: 2000 },
  },
  {
    // max(5, restartable init containers (3+2+1) + regular (1)) = 7
    name: 'multiple restartable init containers (sidecars after the init container)',
    spec: {
      initContainers: [req({ cpu: '5' }, 'init-1'), sidecar({ cpu: '1' }), sidecar({ cpu: '2' }), sidecar({ cpu: '3' })],
      containers: [req({ cpu: '1' })],
    },
    want: { cpuMilli: 7000 },
  },
  {
    // init-2 needs 5 + the sidecars started before it (1+2) = 8; restartable-init-3 starts after it.
    name: 'multiple restartable and regular init containers',
    spec: {
      initContainers: [
        req({ cpu: '5' }, 'init-1'),
        sidecar({ cpu: '1' }, 'restartable-init-1'),
        sidecar({ cpu: '2' }, 'restartable-init-2'),
        req({ cpu: '5' }, 'init-2'),
        sidecar({ cpu: '3' }, 'restartable-init-3'),
      ],
      containers: [req({ cpu: '1' })],
    },
    want: { cpuMilli: 8000 },
  },
  {
    // The bug this file was written for: the sidecar (10) declared before init-1 (200) runs alongside it.
    name: 'restartable-init, init and regular (sidecar before a regular init container)',
    spec: {
      initContainers: [sidecar({ cpu: '10' }, 'restartable-init-1'), req({ cpu: '200' }, 'init-1')],
      containers: [req({ cpu: '100' }, 'container-1')],
    },
    want: { cpuMilli: 210_000 },
  },

  // TestPodLevelResourceRequests (SkipPodLevelResources false, as the 1.35 scheduler runs with PodLevelResources on).
  { name: 'pod level memory resource', spec: { resources: { requests: { memory: '2Mi' } } }, want: { memoryBytes: 2 * MI, cpuMilli: 0 } },
  {
    name: 'pod level memory and container level cpu resources',
    spec: { resources: { requests: { memory: '2Mi' } }, containers: [req({ cpu: '2m' })] },
    want: { memoryBytes: 2 * MI, cpuMilli: 2 },
  },
  {
    name: 'pod level unsupported resources set at pod-level',
    spec: { resources: { requests: { storage: '2Mi' } }, containers: [req({ memory: '3Mi' })] },
    want: { memoryBytes: 3 * MI },
  },
  {
    name: 'both container-level and pod-level resources set',
    spec: { resources: { requests: { memory: '6Mi', cpu: '8m' } }, containers: [req({ memory: '3Mi', cpu: '2m' })] },
    want: { memoryBytes: 6 * MI, cpuMilli: 8 },
  },
  {
    name: 'container-level resources and init container set',
    spec: { containers: [req({ memory: '3Mi', cpu: '2m' })], initContainers: [req({ memory: '5Mi', cpu: '4m' })] },
    want: { memoryBytes: 5 * MI, cpuMilli: 4 },
  },
  {
    name: 'container-level resources and sidecar container set',
    spec: { containers: [req({ memory: '3Mi', cpu: '2m' })], initContainers: [sidecar({ memory: '5Mi', cpu: '4m' })] },
    want: { memoryBytes: 8 * MI, cpuMilli: 6 },
  },
  {
    name: 'container-level resources, init and sidecar container set (sidecar before the init container)',
    spec: {
      containers: [req({ memory: '3Mi', cpu: '2m' })],
      initContainers: [sidecar({ memory: '5Mi', cpu: '4m' }), req({ memory: '6Mi', cpu: '8m' })],
    },
    want: { memoryBytes: 11 * MI, cpuMilli: 12 },
  },
  {
    name: 'pod-level resources, container-level resources, init and sidecar container set',
    spec: {
      resources: { requests: { memory: '15Mi', cpu: '18m' } },
      containers: [req({ memory: '3Mi', cpu: '2m' })],
      initContainers: [sidecar({ memory: '5Mi', cpu: '4m' }), req({ memory: '6Mi', cpu: '8m' })],
    },
    want: { memoryBytes: 15 * MI, cpuMilli: 18 },
  },
  {
    // Spec part of "status resources without overhead still receive overhead": overhead is added after pod-level requests.
    name: 'pod-level requests plus overhead',
    spec: { resources: { requests: { cpu: '1', memory: '100Mi' } }, overhead: { cpu: '100m', memory: '10Mi' } },
    want: { cpuMilli: 1100, memoryBytes: 110 * MI },
  },

  // Ours: GPUs, which the helper tables never use, and pod-level defaulting (defaultPodRequests in defaults.go).
  {
    name: 'ours: a GPU sidecar before a GPU init container counts 3, not 2',
    spec: {
      initContainers: [sidecar({ 'nvidia.com/gpu': '1' }, 'sidecar'), req({ 'nvidia.com/gpu': '2' }, 'warmup')],
      containers: [req({ 'nvidia.com/gpu': '1' }, 'main')],
    },
    want: { gpuCount: 3 },
  },
  {
    name: 'ours: the same GPU sidecar after the init container counts 2',
    spec: {
      initContainers: [req({ 'nvidia.com/gpu': '2' }, 'warmup'), sidecar({ 'nvidia.com/gpu': '1' }, 'sidecar')],
      containers: [req({ 'nvidia.com/gpu': '1' }, 'main')],
    },
    want: { gpuCount: 2 },
  },
  { name: 'ours: limits-only GPU (the device plugin form)', spec: { containers: [lim({ 'nvidia.com/gpu': '2' })] }, want: { gpuCount: 2 } },
  {
    name: 'ours: limits-only GPU in an init container above the app containers',
    spec: { initContainers: [lim({ 'nvidia.com/gpu': '4' })], containers: [lim({ 'nvidia.com/gpu': '1' }), lim({ 'nvidia.com/gpu': '1' })] },
    want: { gpuCount: 4 },
  },
  {
    // IsSupportedPodLevelResource: cpu, memory and hugepages only.
    name: 'ours: a pod-level nvidia.com/gpu is not a pod-level resource and is ignored',
    spec: { resources: { requests: { 'nvidia.com/gpu': '8' } }, containers: [lim({ 'nvidia.com/gpu': '1' })] },
    want: { gpuCount: 1 },
  },
  {
    name: 'ours: pod-level limit only, no container names cpu: the request defaults to the limit',
    spec: { resources: { limits: { cpu: '4' } }, containers: [req({ memory: '1Gi' })] },
    want: { cpuMilli: 4000, memoryBytes: 2 ** 30 },
  },
  {
    name: 'ours: pod-level limit only, a container names cpu: the request defaults to the containers',
    spec: { resources: { limits: { cpu: '4' } }, containers: [req({ cpu: '1' })], initContainers: [sidecar({ cpu: '500m' })] },
    want: { cpuMilli: 1500 },
  },
];

describe('podDemand matches kube-scheduler (component-helpers PodRequests)', () => {
  it.each(CASES)('$name', ({ spec, want }) => {
    const { demand, problem } = podDemand({ spec });
    expect(problem).toBeUndefined();
    expect({ cpuMilli: 0, memoryBytes: 0, gpuCount: 0, ...want }).toEqual({
      cpuMilli: demand.cpuMilli,
      memoryBytes: demand.memoryBytes,
      gpuCount: demand.gpuCount,
    });
  });

  it('names unparseable pod-level and overhead values, and counts them 0', () => {
    expect(podDemand({ spec: { resources: { requests: { cpu: 'lots' } }, containers: [req({ cpu: '1' })] } })).toEqual({
      demand: { cpuMilli: 0, memoryBytes: 0, gpuCount: 0, gpuMilli: 1000 },
      problem: { field: 'pod resources cpu', value: 'lots' },
    });
    expect(podDemand({ spec: { overhead: { memory: '1GB' } } }).problem).toEqual({ field: 'overhead resources memory', value: '1GB' });
  });

  it('reports the first bad value only, with its container name', () => {
    const spec = { containers: [req({ cpu: 'x' }, 'a'), req({ memory: 'y' }, 'b')], initContainers: [req({ 'nvidia.com/gpu': '1.5' }, 'c')] };
    expect(podDemand({ spec }).problem).toEqual({ field: 'container a resources cpu', value: 'x' });
    expect(podDemand({ spec: { containers: [{ resources: { limits: { cpu: '-1' } } }] } }).problem).toEqual({
      field: 'container ? resources cpu',
      value: '-1',
    });
  });
});

describe('podRequests: every resource by name (what the simulator\'s NodeResourcesFit counts)', () => {
  it('sums containers; a limit without a request requests the limit, as the API server defaults it', () => {
    const spec = {
      containers: [
        { resources: { requests: { cpu: '500m', memory: '1Gi', 'example.com/fpga': '1' } } },
        { resources: { limits: { 'nvidia.com/gpu': '2', cpu: '2' }, requests: { cpu: '1', 'ephemeral-storage': '10Gi' } } },
      ],
    };
    expect(Object.fromEntries(podRequests({ spec }).requests)).toEqual({
      cpu: 1500,
      memory: 2 ** 30,
      'example.com/fpga': 1,
      'nvidia.com/gpu': 2,
      'ephemeral-storage': 10 * 2 ** 30,
    });
  });

  it('takes the larger of the running pod and an init container with the sidecars started before it, plus the overhead', () => {
    const spec = {
      initContainers: [sidecar({ cpu: '1' }), req({ cpu: '4', 'example.com/fpga': '2' })],
      containers: [req({ cpu: '2', 'example.com/fpga': '1' })],
      overhead: { cpu: '100m', 'example.com/fpga': '1' },
    };
    // Running: 2 + sidecar 1 = 3; the init container runs beside the sidecar: 4 + 1 = 5; then the overhead.
    expect(Object.fromEntries(podRequests({ spec }).requests)).toEqual({ cpu: 5100, 'example.com/fpga': 3 });
  });

  it('agrees with podDemand on cpu, memory and GPUs for every case of kube\'s tables', () => {
    for (const { spec } of CASES) {
      const { requests } = podRequests({ spec });
      const { demand } = podDemand({ spec });
      expect([requests.get('cpu') ?? 0, requests.get('memory') ?? 0, requests.get('nvidia.com/gpu') ?? 0]).toEqual([demand.cpuMilli, demand.memoryBytes, demand.gpuCount]);
    }
  });

  it('pod-level hugepages replace the containers\' (IsSupportedPodLevelResource), a pod-level limit alone too; extended resources never do', () => {
    const containers = [req({ 'hugepages-2Mi': '100Mi', 'nvidia.com/gpu': '1' })];
    expect(podRequests({ spec: { containers, resources: { requests: { 'hugepages-2Mi': '200Mi', 'nvidia.com/gpu': '4' } } } }).requests.get('hugepages-2Mi')).toBe(200 * MI);
    // hugepages cannot be overcommitted: defaultPodRequests copies the pod-level limit even where containers name them.
    expect(podRequests({ spec: { containers, resources: { limits: { 'hugepages-2Mi': '300Mi' } } } }).requests.get('hugepages-2Mi')).toBe(300 * MI);
    expect(podRequests({ spec: { containers, resources: { requests: { 'nvidia.com/gpu': '4' } } } }).requests.get('nvidia.com/gpu')).toBe(1);
    // A pod-level resource no container names still counts.
    expect(podRequests({ spec: { containers, resources: { requests: { memory: '1Gi' } } } }).requests.get('memory')).toBe(2 ** 30);
  });

  it('counts an unparseable value 0 and names the first one', () => {
    const { requests, problem } = podRequests({ spec: { containers: [req({ cpu: '1', 'example.com/fpga': '0.5' }, 'a'), req({ memory: 'lots' }, 'b')] } });
    expect(Object.fromEntries(requests)).toEqual({ cpu: 1000, 'example.com/fpga': 0, memory: 0 });
    expect(problem).toEqual({ field: 'container a resources example.com/fpga', value: '0.5' });
  });
});

describe('resourceListOf (a node\'s allocatable)', () => {
  it('reads each resource in its unit and leaves out what does not parse', () => {
    expect(Object.fromEntries(resourceListOf({ cpu: '96', memory: '1152Gi', pods: '110', 'hugepages-2Mi': '1Gi', 'nvidia.com/gpu': 8, bad: 'lots', half: '0.5', minus: '-1' }))).toEqual({
      cpu: 96_000,
      memory: 1152 * 2 ** 30,
      pods: 110,
      'hugepages-2Mi': 2 ** 30,
      'nvidia.com/gpu': 8,
    });
    expect(resourceListOf(undefined).size).toBe(0);
  });

  it('cpu in millicores, byte resources in bytes rounded up, others whole numbers only', () => {
    expect(resourceQuantity('cpu', '0.1')).toBe(100);
    expect(resourceQuantity('ephemeral-storage', '1.5Ki')).toBe(1536);
    expect(resourceQuantity('memory', '1e3')).toBe(1000);
    expect(resourceQuantity('nvidia.com/gpu', '2')).toBe(2);
    expect(resourceQuantity('nvidia.com/gpu', '1.5')).toBeUndefined();
    expect(resourceQuantity('cpu', '-1')).toBeUndefined();
  });
});

// Properties over random pods without pod-level resources (those may set cpu
// and memory below the containers, which validation forbids but podDemand
// need not know). Whole quantities only, so sums are exact.
interface Shape {
  cpu: number;
  memory: number;
  gpus: number;
  asLimits: boolean;
}
interface InitShape extends Shape {
  sidecar: boolean;
}

const shape: fc.Arbitrary<Shape> = fc.record({
  cpu: fc.integer({ min: 0, max: 64_000 }),
  memory: fc.integer({ min: 0, max: 2 ** 20 }),
  gpus: fc.integer({ min: 0, max: 8 }),
  asLimits: fc.boolean(),
});
const initShape: fc.Arbitrary<InitShape> = fc.tuple(shape, fc.boolean()).map(([s, isSidecar]) => ({ ...s, sidecar: isSidecar }));
const overheadShape = fc.option(fc.record({ cpu: fc.integer({ min: 0, max: 500 }), memory: fc.integer({ min: 0, max: 1024 }) }), { nil: undefined });

function containerJson(s: Shape, index: number): ContainerJson {
  const list: List = { cpu: `${s.cpu}m`, memory: `${s.memory}Ki`, 'nvidia.com/gpu': String(s.gpus) };
  return { name: `c${index}`, resources: s.asLimits ? { limits: list } : { requests: list } };
}

function podJson(apps: readonly Shape[], inits: readonly InitShape[], overhead?: { cpu: number; memory: number }) {
  return {
    spec: {
      containers: apps.map(containerJson),
      initContainers: inits.map((s, i) => ({ ...containerJson(s, i), ...(s.sidecar ? { restartPolicy: 'Always' } : {}) })),
      ...(overhead === undefined ? {} : { overhead: { cpu: `${overhead.cpu}m`, memory: `${overhead.memory}Ki` } }),
    },
  };
}

type Vector = readonly [cpuMilli: number, memoryBytes: number, gpus: number];
const vector = (s: Shape): Vector => [s.cpu, s.memory * 1024, s.gpus];
const plus = (a: Vector, b: Vector): Vector => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const ZERO: Vector = [0, 0, 0];

function demandVector(pod: unknown): Vector {
  const { demand, problem } = podDemand(pod);
  expect(problem).toBeUndefined();
  return [demand.cpuMilli, demand.memoryBytes, demand.gpuCount];
}

function atLeast(big: Vector, small: Vector): boolean {
  return big[0] >= small[0] && big[1] >= small[1] && big[2] >= small[2];
}

describe('podDemand properties', () => {
  const pods = fc.tuple(fc.array(shape, { maxLength: 4 }), fc.array(initShape, { maxLength: 5 }), overheadShape);

  it('covers the app containers plus every sidecar, and each init container plus the sidecars started before it', () => {
    fc.assert(
      fc.property(pods, ([apps, inits, overhead]) => {
        const demand = demandVector(podJson(apps, inits, overhead));
        const running = [...apps, ...inits.filter((s) => s.sidecar)].map(vector).reduce(plus, ZERO);
        expect(atLeast(demand, running)).toBe(true);
        let sidecarsSoFar = ZERO;
        for (const init of inits) {
          if (init.sidecar) sidecarsSoFar = plus(sidecarsSoFar, vector(init));
          else {
            expect(atLeast(demand, vector(init))).toBe(true);
            expect(atLeast(demand, plus(vector(init), sidecarsSoFar))).toBe(true);
          }
        }
      }),
    );
  });

  it('is no more than it must be: each resource equals its largest bound plus overhead', () => {
    fc.assert(
      fc.property(pods, ([apps, inits, overhead]) => {
        const demand = demandVector(podJson(apps, inits, overhead));
        const bounds: Vector[] = [[...apps, ...inits.filter((s) => s.sidecar)].map(vector).reduce(plus, ZERO)];
        let sidecarsSoFar = ZERO;
        for (const init of inits) {
          if (init.sidecar) sidecarsSoFar = plus(sidecarsSoFar, vector(init));
          else bounds.push(plus(vector(init), sidecarsSoFar));
        }
        const extra: Vector = overhead === undefined ? ZERO : [overhead.cpu, overhead.memory * 1024, 0];
        for (const r of [0, 1, 2] as const) expect(demand[r]).toBe(Math.max(...bounds.map((b) => b[r])) + extra[r]);
      }),
    );
  });

  it('never drops when a sidecar is added anywhere, and never rises when a sidecar moves later', () => {
    fc.assert(
      fc.property(pods, shape, fc.nat(), ([apps, inits, overhead], added, at) => {
        const before = demandVector(podJson(apps, inits, overhead));
        const position = at % (inits.length + 1);
        const withSidecar = [...inits.slice(0, position), { ...added, sidecar: true }, ...inits.slice(position)];
        const after = demandVector(podJson(apps, withSidecar, overhead));
        expect(atLeast(after, before)).toBe(true);
        const atEnd = demandVector(podJson(apps, [...inits, { ...added, sidecar: true }], overhead));
        expect(atLeast(after, atEnd)).toBe(true);
      }),
    );
  });

  it('does not depend on app container order, or on a value being a request or a lone limit', () => {
    fc.assert(
      fc.property(pods, ([apps, inits, overhead]) => {
        const demand = demandVector(podJson(apps, inits, overhead));
        expect(demandVector(podJson([...apps].reverse(), inits, overhead))).toEqual(demand);
        const flip = <T extends Shape>(s: T): T => ({ ...s, asLimits: !s.asLimits });
        expect(demandVector(podJson(apps.map(flip), inits.map(flip), overhead))).toEqual(demand);
      }),
    );
  });

  it('pod-level resources never change the GPU count', () => {
    fc.assert(
      fc.property(pods, fc.integer({ min: 0, max: 64_000 }), ([apps, inits, overhead], cpu) => {
        const pod = podJson(apps, inits, overhead);
        const withPodLevel = { spec: { ...pod.spec, resources: { requests: { cpu: `${cpu}m`, 'nvidia.com/gpu': '99' } } } };
        expect(demandVector(withPodLevel)[2]).toBe(demandVector(pod)[2]);
      }),
    );
  });
});
