/**
 * Physical bounds on what a node says of its GPUs, whoever says it (labels,
 * allocatable, ResourceSlices); a node beyond them reports nonsense (any
 * node can write its own status and its driver's slices).
 */
export const GPU_NODE_LIMITS = {
  physicalGpus: 64,
  /** MIG devices with the `single` strategy: 7 per GPU at most. */
  devices: 64 * 7,
  /** Units of a shared resource (time-slicing replicas × GPUs). */
  sharedUnits: 64 * 1024,
  replicas: 1024,
  memoryMiB: 1024 * 1024,
} as const;
