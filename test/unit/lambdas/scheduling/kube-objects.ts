import type { KubeNode, KubePod } from '../../../../lambdas/scheduling';

/** Builders for Kubernetes Node/Pod JSON shaped like what the API server returns. */
export interface GpuNodeOptions {
  readonly gpus?: number;
  readonly model?: string;
  readonly memoryMiB?: number;
  readonly zone?: string;
  readonly utilization?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
  readonly labels?: Record<string, string>;
}

export function gpuNode(name: string, options: GpuNodeOptions = {}): KubeNode {
  const gpus = options.gpus ?? 8;
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': name,
    ...(options.model === undefined ? { 'gpu.nvidia.com/model': 'A100' } : options.model === '' ? {} : { 'gpu.nvidia.com/model': options.model }),
    ...(options.memoryMiB === undefined ? { 'gpu.nvidia.com/memory': '40960' } : { 'gpu.nvidia.com/memory': String(options.memoryMiB) }),
    'gpu.nvidia.com/count': String(gpus),
    ...(options.zone === undefined ? {} : { 'topology.kubernetes.io/zone': options.zone }),
    ...options.labels,
  };
  const allocatable = { cpu: options.cpu ?? '96', memory: options.memory ?? '1152Gi', pods: options.pods ?? '110', 'nvidia.com/gpu': String(gpus) };
  return {
    metadata: {
      name,
      labels,
      ...(options.utilization === undefined ? {} : { annotations: { 'gpu.nvidia.com/utilization': options.utilization } }),
    },
    status: { allocatable, capacity: allocatable },
  };
}

export interface GpuPodOptions {
  readonly gpus?: number;
  readonly annotations?: Record<string, string>;
  readonly labels?: Record<string, string>;
  readonly nodeName?: string;
  readonly namespace?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly phase?: string;
}

export function gpuPod(name: string, options: GpuPodOptions = {}): KubePod {
  const limits: Record<string, string> = {};
  if (options.gpus !== undefined && options.gpus > 0) limits['nvidia.com/gpu'] = String(options.gpus);
  const requests: Record<string, string> = {};
  if (options.cpu !== undefined) requests.cpu = options.cpu;
  if (options.memory !== undefined) requests.memory = options.memory;
  return {
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      labels: options.labels ?? { app: name },
      annotations: options.annotations ?? {},
    },
    spec: {
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
      containers: [{ name: 'main', resources: { limits, requests } }],
    },
    status: { phase: options.phase ?? (options.nodeName === undefined ? 'Pending' : 'Running') },
  };
}
