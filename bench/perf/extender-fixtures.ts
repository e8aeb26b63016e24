// Synthetic, deterministic EKS GPU clusters for the extender benchmarks: Node
// objects shaped like what EKS registers and kube-scheduler forwards (labels,
// taints, capacity, conditions, addresses, nodeInfo, images), pods bound to
// them (GPU workers, peers for network locality, CPU daemons), and the GPU pod
// being scheduled.
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { createRng } from '../trace/seeded-rng';

interface GpuShape {
  readonly instanceType: string;
  readonly model: string;
  readonly memoryMiB: number;
  readonly gpus: number;
  readonly cpu: number;
  readonly memoryKi: number;
}

/** Instance types as DescribeInstanceTypes reports them (docs/DESIGN.md). */
const SHAPES: readonly GpuShape[] = [
  { instanceType: 'p4d.24xlarge', model: 'A100', memoryMiB: 40960, gpus: 8, cpu: 96, memoryKi: 1176470496 },
  { instanceType: 'p5.48xlarge', model: 'H100', memoryMiB: 81920, gpus: 8, cpu: 192, memoryKi: 2097152000 },
  { instanceType: 'g5.12xlarge', model: 'A10G', memoryMiB: 22888, gpus: 4, cpu: 48, memoryKi: 196608000 },
  { instanceType: 'g5.xlarge', model: 'A10G', memoryMiB: 22888, gpus: 1, cpu: 4, memoryKi: 16384000 },
  { instanceType: 'g6e.12xlarge', model: 'L40S', memoryMiB: 45776, gpus: 4, cpu: 48, memoryKi: 393216000 },
];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'] as const;
const IMAGES = [
  'public.ecr.aws/eks-distro/kubernetes/pause:3.10',
  'nvcr.io/nvidia/k8s-device-plugin:v0.17.0',
  'public.ecr.aws/cloudwatch-agent/cloudwatch-agent:1.300049.1',
  '602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1',
  '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.35.0-minimal-eksbuild.2',
  'public.ecr.aws/example/trainer:1.4',
];
export const BENCH_NAMESPACE = 'ml';

export function nodeName(index: number): string {
  return `ip-10-${(index >> 16) & 255}-${(index >> 8) & 255}-${index & 255}.ec2.internal`;
}

function hex(rng: ReturnType<typeof createRng>, length: number): string {
  let out = '';
  while (out.length < length) out += rng.int(0x10000).toString(16).padStart(4, '0');
  return out.slice(0, length);
}

/** One Node object as the API server serves it (no managedFields: kube-scheduler's informers strip them). */
export function gpuNode(index: number, rng = createRng(index + 1)): Record<string, unknown> {
  const shape = SHAPES[index % SHAPES.length] as GpuShape;
  const zone = ZONES[index % ZONES.length] as string;
  const name = nodeName(index);
  const ip = name.slice(3, name.indexOf('.')).replaceAll('-', '.');
  const instanceId = `i-0${hex(rng, 16)}`;
  const nodegroup = `gpu-${shape.instanceType.split('.')[0] ?? 'x'}`;
  const resources = (cpu: string, memory: string) => ({
    cpu,
    'ephemeral-storage': '95551679124',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory,
    [GPU_RESOURCE]: String(shape.gpus),
    pods: '250',
  });
  return {
    metadata: {
      name,
      uid: `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-8${hex(rng, 3)}-${hex(rng, 12)}`,
      resourceVersion: String(100000 + index),
      creationTimestamp: '2026-11-30T07:12:44Z',
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': shape.instanceType,
        'beta.kubernetes.io/os': 'linux',
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'eks.amazonaws.com/nodegroup': nodegroup,
        'eks.amazonaws.com/nodegroup-image': 'ami-0123456789abcdef0',
        'failure-domain.beta.kubernetes.io/region': 'us-east-1',
        'failure-domain.beta.kubernetes.io/zone': zone,
        'k8s.io/cloud-provider-aws': '0123456789abcdef0123456789abcdef',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': shape.instanceType,
        'topology.k8s.aws/zone-id': `use1-az${(index % ZONES.length) + 1}`,
        'topology.kubernetes.io/region': 'us-east-1',
        'topology.kubernetes.io/zone': zone,
        'gpu.nvidia.com/model': shape.model,
        'gpu.nvidia.com/memory': String(shape.memoryMiB),
        'gpu.nvidia.com/count': String(shape.gpus),
      },
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': ip,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'gpu.nvidia.com/utilization': String(rng.int(101)),
      },
    },
    spec: {
      providerID: `aws:///${zone}/${instanceId}`,
      taints: [{ key: GPU_RESOURCE, value: 'true', effect: 'NoSchedule' }],
    },
    status: {
      capacity: resources(String(shape.cpu), `${shape.memoryKi}Ki`),
      allocatable: resources(`${shape.cpu * 1000 - 310}m`, `${shape.memoryKi - 15557376}Ki`),
      conditions: [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ].map(([type, status, reason, message]) => ({
        type,
        status,
        lastHeartbeatTime: '2026-11-30T09:01:02Z',
        lastTransitionTime: '2026-11-30T07:13:20Z',
        reason,
        message,
      })),
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'InternalDNS', address: name },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: hex(rng, 32),
        systemUUID: `ec2${hex(rng, 5)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 12)}`,
        bootID: `${hex(rng, 8)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 12)}`,
        kernelVersion: '6.1.112-124.190.amzn2023.x86_64',
        osImage: 'Amazon Linux 2023.6.20241121',
        containerRuntimeVersion: 'containerd://1.7.23',
        kubeletVersion: 'v1.35.4-eks-abcdef',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: IMAGES.map((image, i) => ({ names: [image, `${image.split(':')[0] ?? image}@sha256:${hex(rng, 64)}`], sizeBytes: 20_000_000 + i * 7_654_321 })),
    },
  };
}

export function gpuNodes(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => gpuNode(i));
}

function boundPod(index: number, node: string, gpus: number, labels: Record<string, string>, rng: ReturnType<typeof createRng>): Record<string, unknown> {
  const limits: Record<string, string> = gpus > 0 ? { [GPU_RESOURCE]: String(gpus) } : {};
  return {
    metadata: {
      name: `${labels.app ?? 'pod'}-${index}`,
      namespace: labels.app === 'trainer' || labels.app === 'worker' ? BENCH_NAMESPACE : 'kube-system',
      uid: `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-8${hex(rng, 3)}-${hex(rng, 12)}`,
      resourceVersion: String(200000 + index),
      creationTimestamp: '2026-11-30T08:00:00Z',
      labels,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${labels.app ?? 'pod'}-7d9f8c`, uid: hex(rng, 32), controller: true }],
    },
    spec: {
      nodeName: node,
      schedulerName: gpus > 0 ? 'gpu-scheduler' : 'default-scheduler',
      containers: [
        {
          name: 'main',
          image: 'public.ecr.aws/example/trainer:1.4',
          resources: { requests: { cpu: gpus > 0 ? '4' : '100m', memory: gpus > 0 ? '32Gi' : '128Mi', ...limits }, limits },
        },
      ],
      tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
    },
    status: { phase: 'Running', podIP: `100.64.${(index >> 8) & 255}.${index & 255}`, startTime: '2026-11-30T08:00:05Z' },
  };
}

/**
 * `count` pods bound across the nodes, round-robin: one in ten a GPU worker
 * (at most half of the node's GPUs in use, so nodes stay partly free), one in
 * fifty a peer of the benchmark pod (app=trainer), the rest CPU daemons.
 */
export function boundPods(nodes: readonly Record<string, unknown>[], count: number): Record<string, unknown>[] {
  const rng = createRng(7);
  const used = new Map<number, number>();
  const pods: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const at = i % nodes.length;
    const node = nodes[at] as { metadata: { name: string; labels: Record<string, string> } };
    const capacity = Number(node.metadata.labels['gpu.nvidia.com/count']);
    const inUse = used.get(at) ?? 0;
    let gpus = 0;
    let labels: Record<string, string> = { app: 'node-daemon' };
    if (i % 50 === 0) labels = { app: 'trainer', job: 'llm-ft' };
    else if (i % 10 === 0 && inUse + 1 <= capacity / 2) {
      gpus = 1;
      labels = { app: 'worker' };
    }
    used.set(at, inUse + gpus);
    pods.push(boundPod(i, node.metadata.name, gpus, labels, rng));
  }
  return pods;
}

/** The pod being scheduled: 2 GPUs of A100 or H100 with ≥ 40 GiB each, talking to app=trainer peers. */
export function benchPod(): Record<string, unknown> {
  return {
    metadata: {
      name: 'llm-ft-0',
      namespace: BENCH_NAMESPACE,
      uid: '7d3e5c1a-1111-4222-8333-6c6c6d2d6674',
      labels: { app: 'trainer', job: 'llm-ft' },
      annotations: {
        'gpu.nvidia.com/model': 'A100|H100',
        'gpu.nvidia.com/memory': '40960',
        'gpu.nvidia.com/peer-selector': 'app=trainer,job=llm-ft',
      },
    },
    spec: {
      schedulerName: 'gpu-scheduler',
      containers: [
        {
          name: 'train',
          image: 'public.ecr.aws/example/trainer:1.4',
          resources: { limits: { [GPU_RESOURCE]: '2' }, requests: { cpu: '8', memory: '64Gi', [GPU_RESOURCE]: '2' } },
        },
      ],
      tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
    },
    status: { phase: 'Pending' },
  };
}

/**
 * The pod as kube-scheduler sends it: from its informer cache, so with the
 * resourceVersion the API server gave it (benchPod has none, since it is
 * also what scale-steady creates).
 */
function scheduledPod(): Record<string, unknown> {
  const pod = benchPod();
  return { ...pod, metadata: { ...(pod.metadata as Record<string, unknown>), resourceVersion: '184077' } };
}

/** ExtenderArgs bodies as kube-scheduler sends them. */
export function nodeNamesArgs(nodes: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ Pod: scheduledPod(), Nodes: null, NodeNames: nodes.map((n) => (n.metadata as { name: string }).name) });
}

export function fullNodesArgs(nodes: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ Pod: scheduledPod(), Nodes: { metadata: {}, items: nodes }, NodeNames: null });
}

/**
 * The largest node count whose full-Nodes ExtenderArgs fits `limitBytes` (the
 * ALB's 1 MiB), found by bisection over the generated nodes.
 */
export function largestFullNodesCount(limitBytes: number, upTo = 5000): number {
  const nodes = gpuNodes(upTo);
  const fits = (n: number) => Buffer.byteLength(fullNodesArgs(nodes.slice(0, n)), 'utf8') <= limitBytes;
  let lo = 0;
  let hi = upTo;
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
