// Labels and allocatable as the real labellers and the NVIDIA device plugin
// write them on production EKS GPU nodes (DESIGN.md "Real clusters";
// Karpenter's AWS provider labels, GFD's "Generated Labels" and MIG tables),
// shared by the e2e files that create such nodes.

export const KARPENTER_P4D = {
  'karpenter.sh/nodepool': 'gpu',
  'karpenter.sh/capacity-type': 'on-demand',
  'karpenter.k8s.aws/instance-gpu-name': 'a100',
  'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
  'karpenter.k8s.aws/instance-gpu-count': '8',
  'karpenter.k8s.aws/instance-gpu-memory': '40960',
};
export const GFD_P4D = {
  'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB',
  'nvidia.com/gpu.count': '8',
  'nvidia.com/gpu.memory': '40960',
  'nvidia.com/gpu.replicas': '1',
  'nvidia.com/gpu.sharing-strategy': 'none',
  'nvidia.com/mig.capable': 'true',
};
/** g5.12xlarge (4 × A10G) with the device plugin's time-slicing, 4 replicas per GPU, default renaming (-SHARED). */
export const GFD_G5_TIME_SLICED = {
  'nvidia.com/gpu.product': 'NVIDIA-A10G-SHARED',
  'nvidia.com/gpu.count': '4',
  'nvidia.com/gpu.memory': '23028',
  'nvidia.com/gpu.replicas': '4',
  'nvidia.com/gpu.sharing-strategy': 'time-slicing',
};
/** p4d.24xlarge partitioned with MIG `single`, 7 × 1g.5gb per A100: 56 devices of 5 GB. */
export const GFD_P4D_MIG_SINGLE = {
  'nvidia.com/mig.capable': 'true',
  'nvidia.com/mig.strategy': 'single',
  'nvidia.com/gpu.product': 'A100-SXM4-40GB-MIG-1g.5gb',
  'nvidia.com/gpu.count': '56',
  'nvidia.com/gpu.memory': '5120',
  'nvidia.com/gpu.replicas': '1',
};
/** The same g5.12xlarge with `renameByDefault`: replicas are advertised as nvidia.com/gpu.shared, the product keeps its name. */
export const GFD_G5_RENAMED = { ...GFD_G5_TIME_SLICED, 'nvidia.com/gpu.product': 'NVIDIA-A10G' };
export const RENAMED_RESOURCES = { 'nvidia.com/gpu': '0', 'nvidia.com/gpu.shared': '16' };
/** p4d.24xlarge with MIG `mixed`: two A100s as 2 × 3g.20gb each, two as 7 × 1g.5gb, as GFD labels the profiles. */
export const GFD_P4D_MIG_MIXED = {
  'nvidia.com/mig.capable': 'true',
  'nvidia.com/mig.strategy': 'mixed',
  'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB',
  'nvidia.com/mig-3g.20gb.count': '4',
  'nvidia.com/mig-3g.20gb.memory': '20096',
  'nvidia.com/mig-1g.5gb.count': '14',
  'nvidia.com/mig-1g.5gb.memory': '4864',
};
export const MIG_MIXED_RESOURCES = { 'nvidia.com/gpu': '0', 'nvidia.com/mig-3g.20gb': '4', 'nvidia.com/mig-1g.5gb': '14' };
/** p5.48xlarge (8 × H100) as EKS Auto Mode labels it: EC2's figures, Karpenter-style lower-case name. */
export const AUTO_MODE_P5 = {
  'eks.amazonaws.com/compute-type': 'auto',
  'eks.amazonaws.com/instance-gpu-name': 'h100',
  'eks.amazonaws.com/instance-gpu-manufacturer': 'nvidia',
  'eks.amazonaws.com/instance-gpu-count': '8',
  'eks.amazonaws.com/instance-gpu-memory': '81920',
};
/** The same p5 as GPU Feature Discovery labels it: the driver's NVML total, 361 MiB under EC2's. */
export const GFD_P5 = {
  'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
  'nvidia.com/gpu.count': '8',
  'nvidia.com/gpu.memory': '81559',
  'nvidia.com/gpu.replicas': '1',
  'nvidia.com/gpu.sharing-strategy': 'none',
};
