/**
 * Label, annotation and resource names the library reads. One place, so the
 * labeler, the reconciler and the docs can import the exact spelling.
 */
export const GPU_RESOURCE = 'nvidia.com/gpu';

/** The time-sliced or MPS replica resource when the device plugin renames it (`renameByDefault: true`). */
export const SHARED_GPU_RESOURCE = 'nvidia.com/gpu.shared';

/** Prefix of the MIG resources of the device plugin's `mixed` strategy: `nvidia.com/mig-<g>g.<mem>gb`. */
export const MIG_RESOURCE_PREFIX = 'nvidia.com/mig-';

/**
 * NVIDIA's DRA driver (kubernetes-sigs dra-driver-nvidia-gpu): its driver
 * name, which is also its DeviceClass's name. Read by both sides of DRA: the
 * ResourceSlices a node publishes (dra-gpus.ts) and the ResourceClaims a pod
 * holds (dra-claims.ts).
 */
export const NVIDIA_DRA_DRIVER = 'gpu.nvidia.com';

export const NODE_LABEL = {
  /** GPU model, e.g. `A100`, `H100`, or an NVIDIA product name such as `NVIDIA-A100-SXM4-40GB`. */
  gpuModel: 'gpu.nvidia.com/model',
  /** Memory per GPU in MiB, e.g. `40960`. */
  gpuMemory: 'gpu.nvidia.com/memory',
  /** Number of GPUs; used only when `status.allocatable` lacks `nvidia.com/gpu`. */
  gpuCount: 'gpu.nvidia.com/count',
  /** EC2's manufacturer name, e.g. `NVIDIA`: our labels are read only when it is NVIDIA (or absent). */
  gpuManufacturer: 'gpu.nvidia.com/manufacturer',
  zone: 'topology.kubernetes.io/zone',
  /**
   * `degraded` while the node's GPUs gave warnings in the last hour (the node
   * monitoring agent's warning events) or a DRA device carries a taint of
   * effect None: written and removed by the metrics reconciler
   * (lambdas/reconciler/gpu-health-labels.ts), read by the extender's
   * GpuHealth score.
   */
  gpuHealth: 'gpu.nvidia.com/health',
} as const;

/** The one value of NODE_LABEL.gpuHealth. */
export const GPU_HEALTH_DEGRADED = 'degraded';

/**
 * EKS's labels for a node's place in the EC2 network hierarchy, top
 * (broadest) first: layer 1 … 3 on most instance types, a 4th on types whose
 * topology has four layers. Nodes sharing a value at a deeper layer are
 * fewer network hops apart. Other `network-node-layer-*` names are ignored.
 */
export const NETWORK_LAYER_LABELS = [
  'topology.k8s.aws/network-node-layer-1',
  'topology.k8s.aws/network-node-layer-2',
  'topology.k8s.aws/network-node-layer-3',
  'topology.k8s.aws/network-node-layer-4',
] as const;

/** What Karpenter (AWS provider) labels its nodes with; read when our own labels are not there yet. */
export const KARPENTER_LABEL = {
  /** Lower case, e.g. `a100`. */
  gpuName: 'karpenter.k8s.aws/instance-gpu-name',
  gpuCount: 'karpenter.k8s.aws/instance-gpu-count',
  /** MiB per GPU. */
  gpuMemory: 'karpenter.k8s.aws/instance-gpu-memory',
  /** Lower case, e.g. `nvidia`; another maker's GPUs (`amd`) are not ours to place. */
  gpuManufacturer: 'karpenter.k8s.aws/instance-gpu-manufacturer',
} as const;

/** What EKS Auto Mode labels its nodes with (EC2's numbers, like Karpenter's); read after ours and Karpenter's. */
export const AUTO_MODE_LABEL = {
  /** Lower case like Karpenter's, e.g. `h100`. */
  gpuName: 'eks.amazonaws.com/instance-gpu-name',
  gpuCount: 'eks.amazonaws.com/instance-gpu-count',
  /** MiB per GPU. */
  gpuMemory: 'eks.amazonaws.com/instance-gpu-memory',
  gpuManufacturer: 'eks.amazonaws.com/instance-gpu-manufacturer',
  /** `auto` on Auto Mode nodes; not needed to read the GPU labels above. */
  computeType: 'eks.amazonaws.com/compute-type',
} as const;

/** What NVIDIA GPU Feature Discovery labels (the driver's NVML numbers); read after ours, Karpenter's and Auto Mode's. */
export const GFD_LABEL = {
  /** e.g. `NVIDIA-A100-SXM4-40GB`; `-SHARED` appended on shared nodes; `…-MIG-1g.5gb` with MIG `single`. */
  product: 'nvidia.com/gpu.product',
  /** Physical GPUs, or MIG devices with MIG `single`. */
  count: 'nvidia.com/gpu.count',
  /** MiB per GPU, or per MIG device with MIG `single`. */
  memory: 'nvidia.com/gpu.memory',
  replicas: 'nvidia.com/gpu.replicas',
  /** `none`, `time-slicing` or `mps`. */
  sharingStrategy: 'nvidia.com/gpu.sharing-strategy',
  /** `single` or `mixed`. */
  migStrategy: 'nvidia.com/mig.strategy',
} as const;

/**
 * How a node's capacity was bought, in the words of each labeller. Ours are
 * written by the labeler from EC2 (DescribeInstances, DescribeCapacityReservations):
 * the type where neither Karpenter nor EKS states it (or states it otherwise
 * than EC2 does), the reservation's end and type wherever the instance is in
 * a reservation (lambdas/labeler/capacity-labels.ts).
 */
export const CAPACITY_LABEL = {
  /** `reserved`, `on-demand` or `spot`. */
  capacityType: 'gpu.nvidia.com/capacity-type',
  /** When the node's capacity reservation ends, Unix seconds; absent when it has no end. */
  reservationEnd: 'gpu.nvidia.com/capacity-reservation-end',
  /** EC2's ReservationType: `default` (an On-Demand Capacity Reservation) or `capacity-block`. */
  reservationType: 'gpu.nvidia.com/capacity-reservation-type',
} as const;

/** Karpenter's capacity labels (sigs.k8s.io/karpenter and karpenter-provider-aws `pkg/apis/v1/labels.go`). */
export const KARPENTER_CAPACITY_LABEL = {
  /** `reserved` (since v1.3), `on-demand` or `spot`; EKS Auto Mode writes it too. */
  capacityType: 'karpenter.sh/capacity-type',
  reservationId: 'karpenter.k8s.aws/capacity-reservation-id',
  /** `default` or `capacity-block` (since v1.6). */
  reservationType: 'karpenter.k8s.aws/capacity-reservation-type',
} as const;

/** EKS managed node groups' capacity label: `ON_DEMAND`, `SPOT` or `CAPACITY_BLOCK` (the node group's capacityType). */
export const EKS_CAPACITY_TYPE_LABEL = 'eks.amazonaws.com/capacityType';

export const NODE_ANNOTATION = {
  /** Mean GPU utilization in percent (0..100), written by the metrics reconciler. Absent = unknown. */
  gpuUtilization: 'gpu.nvidia.com/utilization',
  /** Beside NODE_LABEL.gpuHealth: what made the node degraded and when, written by the metrics reconciler. */
  gpuHealthReasons: 'gpu.nvidia.com/health-reasons',
} as const;

/**
 * Taints our components own. `gpuLabelsPending` is the optional start-up taint
 * of GPU nodes the app creates: the labeler removes it once the node's labels
 * are right, and the admission policy (cdk/lib/access/write-limit-policy.ts)
 * lets the labeler remove exactly this taint and no other.
 */
export const NODE_TAINT = {
  gpuLabelsPending: 'gpu.nvidia.com/labels-pending',
} as const;

export const POD_ANNOTATION = {
  /** Allowed GPU models, alternatives separated by `|` or `,`, case-insensitive. */
  gpuModel: 'gpu.nvidia.com/model',
  /** Minimum memory per GPU: MiB as a bare number, or a quantity such as `40Gi`. */
  gpuMemory: 'gpu.nvidia.com/memory',
  /** Label selector (same namespace) naming the pods this pod talks to, e.g. `app=trainer,job=x`. */
  peerSelector: 'gpu.nvidia.com/peer-selector',
  /** Number of pods in the pod's job (all alike, found by its peer selector), 1..MAX_GROUP_SIZE. */
  groupSize: 'gpu.nvidia.com/group-size',
  /**
   * `"true"`: the reconciler gives the pod Karpenter's
   * `karpenter.sh/do-not-disrupt: "true"` once it is bound and takes it away
   * when the pod has finished (lambdas/reconciler/do-not-disrupt.ts). For
   * training pods, set on the Job's pod template.
   */
  doNotDisrupt: 'gpu.nvidia.com/do-not-disrupt',
  /**
   * How long the pod expects to run, a duration such as `90m` or `6h`: the
   * pod is kept off Capacity Blocks that end before it would finish
   * (plugins/capacity-reservation.ts). A malformed value counts as unknown.
   */
  expectedRuntime: 'gpu.nvidia.com/expected-runtime',
} as const;

/** Pod labels our components write. */
export const POD_LABEL = {
  /**
   * `reconciler` on a pod whose `karpenter.sh/do-not-disrupt` the reconciler
   * wrote: it only ever removes one so marked, never one the pod came with.
   * A label (not an annotation) so the finished pods to clean up are found by
   * a server-side selector rather than by listing every finished pod.
   */
  doNotDisruptOwner: 'gpu.nvidia.com/do-not-disrupt-owner',
} as const;

/** Largest group-size accepted: one pod on each node of the largest EKS cluster (100,000 nodes); anything above is a typo. */
export const MAX_GROUP_SIZE = 100_000;

/** A whole GPU in the device model's unit of sharing. */
export const GPU_MILLI = 1000;
