/**
 * The label values each labeller writes for the NVIDIA GPUs EC2 offers, by
 * canonical model (the keys of MARKETED_GPU_MEMORY_GIB). Node affinity
 * compares values exactly, so the admission policy that turns a pod's
 * `gpu.nvidia.com/model` into node affinity needs every spelling a node may
 * carry: EC2's name (our labeler's `gpu.nvidia.com/model`), its lower case
 * (Karpenter's and Auto Mode's `instance-gpu-name`, our Karpenter-style
 * copy), and GPU Feature Discovery's product names (the driver's, plus our
 * labeler's GFD-style `<manufacturer>-<model>`), each also with the
 * `-SHARED` suffix GFD adds on time-sliced or MPS nodes.
 */

interface ModelSpellings {
  /** EC2's DescribeInstanceTypes name (our labeler writes it as is). */
  readonly ec2: string;
  /** NVML product names as GPU Feature Discovery writes them (spaces become `-`). */
  readonly gfdProducts: readonly string[];
}

export const GPU_MODEL_SPELLINGS: Readonly<Record<string, ModelSpellings>> = {
  A10G: { ec2: 'A10G', gfdProducts: ['NVIDIA-A10G'] },
  A100: { ec2: 'A100', gfdProducts: ['NVIDIA-A100-SXM4-40GB', 'NVIDIA-A100-SXM4-80GB'] },
  B200: { ec2: 'B200', gfdProducts: ['NVIDIA-B200'] },
  GB200: { ec2: 'GB200', gfdProducts: ['NVIDIA-GB200'] },
  H100: { ec2: 'H100', gfdProducts: ['NVIDIA-H100-80GB-HBM3'] },
  H200: { ec2: 'H200', gfdProducts: ['NVIDIA-H200'] },
  K80: { ec2: 'K80', gfdProducts: ['Tesla-K80'] },
  L4: { ec2: 'L4', gfdProducts: ['NVIDIA-L4'] },
  L40S: { ec2: 'L40S', gfdProducts: ['NVIDIA-L40S'] },
  M60: { ec2: 'M60', gfdProducts: ['Tesla-M60'] },
  T4: { ec2: 'T4', gfdProducts: ['Tesla-T4'] },
  T4G: { ec2: 'T4g', gfdProducts: ['NVIDIA-T4G'] },
  V100: { ec2: 'V100', gfdProducts: ['Tesla-V100-SXM2-16GB', 'Tesla-V100-SXM2-32GB'] },
};

/** Who writes a node's GPU model and memory labels, and how. */
export type Labeller = 'karpenter' | 'autoMode' | 'ours' | 'gfd';

const SHARED_SUFFIX = '-SHARED';

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** Every value `labeller` may write for a GPU of this canonical model. */
export function modelLabelValues(canonical: string, labeller: Labeller): readonly string[] {
  const spelling = GPU_MODEL_SPELLINGS[canonical];
  if (spelling === undefined) return [];
  switch (labeller) {
    case 'karpenter':
    case 'autoMode':
      return [spelling.ec2.toLowerCase()];
    case 'ours':
      return unique([spelling.ec2, canonical]);
    case 'gfd': {
      const products = unique([...spelling.gfdProducts, `NVIDIA-${spelling.ec2}`]);
      return [...products, ...products.map((product) => `${product}${SHARED_SUFFIX}`)];
    }
  }
}
