import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { toGpuInfo } from '../aws/instance-type-gpu-info';

/** The EKS AL2023 NVIDIA AMI for each CPU architecture (driver and container toolkit included). */
export const NVIDIA_AMI_TYPES = { x86_64: 'AL2023_x86_64_NVIDIA', arm64: 'AL2023_ARM_64_NVIDIA' } as const;
type Architecture = keyof typeof NVIDIA_AMI_TYPES;
const ARCHITECTURES = Object.keys(NVIDIA_AMI_TYPES) as Architecture[];

/** A configured node group that cannot run: the message names the setting and every reason. */
export class GpuInstanceTypesError extends Error {
  override readonly name = 'GpuInstanceTypesError';
}

export interface GpuInstanceTypesVerdict {
  /** The AMI type the node group needs (one AMI per node group). */
  readonly amiType: (typeof NVIDIA_AMI_TYPES)[Architecture];
  /** Per type, what EC2 says about its GPUs, e.g. `p5.48xlarge: 8 × NVIDIA H100, 81920 MiB each`. */
  readonly gpus: readonly string[];
}

export interface GpuInstanceTypesRequest {
  /** The configuration key the types come from, e.g. `cluster.gpuNodeGroups[0].instanceTypes`. */
  readonly setting: string;
  readonly instanceTypes: readonly string[];
  /** Where DescribeInstanceTypes was asked; named in the message for a type it does not list. */
  readonly region: string;
}

/**
 * Decides from DescribeInstanceTypes alone (no list of families of our own,
 * so a type released tomorrow is accepted the day EC2 lists it) whether a GPU
 * node group can run: every type must be known to EC2 in the region, have at
 * least one NVIDIA GPU, and share a CPU architecture with the others.
 */
export function checkGpuInstanceTypes(request: GpuInstanceTypesRequest, described: readonly InstanceTypeInfo[]): GpuInstanceTypesVerdict {
  const byType = new Map<string, InstanceTypeInfo>(described.flatMap((item) => (item.InstanceType === undefined ? [] : [[item.InstanceType, item] as const])));
  const problems: string[] = [];
  const gpus: string[] = [];
  const architectures = new Map<string, Architecture[]>();
  if (request.instanceTypes.length === 0) problems.push('lists no instance type');
  for (const instanceType of request.instanceTypes) {
    const item = byType.get(instanceType);
    if (item === undefined) {
      problems.push(`${instanceType} is not an instance type EC2 offers in ${request.region} (DescribeInstanceTypes does not list it)`);
      continue;
    }
    const info = toGpuInfo(instanceType, item.GpuInfo);
    const nvidia = info.gpus.filter((gpu) => gpu.manufacturer.toLowerCase() === 'nvidia');
    if (nvidia.length === 0) {
      const other = info.gpus.map((gpu) => `${gpu.count} × ${gpu.manufacturer} ${gpu.name}`).join(', ');
      problems.push(`${instanceType} has no NVIDIA GPU (DescribeInstanceTypes reports ${other === '' ? 'no GPU' : other})`);
      continue;
    }
    gpus.push(`${instanceType}: ${nvidia.map((gpu) => `${gpu.count} × NVIDIA ${gpu.name}, ${gpu.memoryMiB} MiB each`).join('; ')}`);
    const supported = (item.ProcessorInfo?.SupportedArchitectures ?? []).filter((a): a is Architecture => (ARCHITECTURES as string[]).includes(a));
    if (supported.length === 0) {
      problems.push(`${instanceType} supports none of the architectures an EKS NVIDIA AMI exists for (${ARCHITECTURES.join(', ')})`);
      continue;
    }
    architectures.set(instanceType, supported);
  }
  const common = ARCHITECTURES.filter((architecture) => [...architectures.values()].every((supported) => supported.includes(architecture)));
  if (architectures.size > 0 && common.length === 0) {
    const listed = [...architectures].map(([type, supported]) => `${type} ${supported.join('/')}`).join(', ');
    problems.push(`mixes CPU architectures (${listed}); a node group has one AMI, so put each architecture in its own group`);
  }
  const [architecture] = common;
  if (problems.length > 0 || architecture === undefined) {
    throw new GpuInstanceTypesError(`${request.setting}: ${problems.join('; ')}`);
  }
  return { amiType: NVIDIA_AMI_TYPES[architecture], gpus };
}
