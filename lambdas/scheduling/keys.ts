/**
 * Label, annotation and resource names the library reads. One place, so the
 * labeler, the reconciler and the docs can import the exact spelling.
 */
export const GPU_RESOURCE = 'nvidia.com/gpu';

export const NODE_LABEL = {
  /** GPU model, e.g. `A100`, `H100`, or an NVIDIA product name such as `NVIDIA-A100-SXM4-40GB`. */
  gpuModel: 'gpu.nvidia.com/model',
  /** Memory per GPU in MiB, e.g. `40960`. */
  gpuMemory: 'gpu.nvidia.com/memory',
  /** Number of GPUs; used only when `status.allocatable` lacks `nvidia.com/gpu`. */
  gpuCount: 'gpu.nvidia.com/count',
  zone: 'topology.kubernetes.io/zone',
} as const;

export const NODE_ANNOTATION = {
  /** Mean GPU utilization in percent (0..100), written by the metrics reconciler. Absent = unknown. */
  gpuUtilization: 'gpu.nvidia.com/utilization',
} as const;

export const POD_ANNOTATION = {
  /** Allowed GPU models, alternatives separated by `|` or `,`, case-insensitive. */
  gpuModel: 'gpu.nvidia.com/model',
  /** Minimum memory per GPU: MiB as a bare number, or a quantity such as `40Gi`. */
  gpuMemory: 'gpu.nvidia.com/memory',
  /** Label selector (same namespace) naming the pods this pod talks to, e.g. `app=trainer,job=x`. */
  peerSelector: 'gpu.nvidia.com/peer-selector',
} as const;

/** A whole GPU in the device model's unit of sharing. */
export const GPU_MILLI = 1000;
