import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { checkGpuInstanceTypes, GpuInstanceTypesError } from '../../../../lambdas/gpu-instance-types/check-gpu-instance-types';

// Shapes as DescribeInstanceTypes returns them (moto's copies of EC2's data);
// the names are made up on purpose: nothing may depend on a list of families.
function type(name: string, architectures: string[], gpus?: { Name: string; Manufacturer: string; Count: number; LogicalGpuCount?: number; SizeInMiB: number }[]): InstanceTypeInfo {
  return {
    InstanceType: name as InstanceTypeInfo['InstanceType'],
    ProcessorInfo: { SupportedArchitectures: architectures as ('x86_64' | 'arm64')[] },
    ...(gpus
      ? { GpuInfo: { Gpus: gpus.map((g) => ({ Name: g.Name, Manufacturer: g.Manufacturer, Count: g.Count, LogicalGpuCount: g.LogicalGpuCount, MemoryInfo: { SizeInMiB: g.SizeInMiB } })) } }
      : {}),
  };
}

const request = (instanceTypes: string[]) => ({ setting: 'cluster.gpuNodeGroups[2].instanceTypes', instanceTypes, region: 'eu-west-1' });
const futureX86 = type('p9-z900.48xlarge', ['x86_64'], [{ Name: 'Z900', Manufacturer: 'NVIDIA', Count: 8, SizeInMiB: 300_000 }]);
const futureArm = type('p9g-z900.72xlarge', ['arm64'], [{ Name: 'GZ900', Manufacturer: 'NVIDIA', Count: 4, SizeInMiB: 190_000 }]);

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GpuInstanceTypesError);
    return (error as Error).message;
  }
  throw new Error('expected the check to fail');
}

describe('checkGpuInstanceTypes', () => {
  it('accepts a type it has never heard of when EC2 reports an NVIDIA GPU, with the x86_64 NVIDIA AMI', () => {
    expect(checkGpuInstanceTypes(request(['p9-z900.48xlarge']), [futureX86])).toEqual({
      amiType: 'AL2023_x86_64_NVIDIA',
      gpus: ['p9-z900.48xlarge: 8 × NVIDIA Z900, 300000 MiB each'],
    });
  });

  it('picks the ARM NVIDIA AMI for arm64 types (Graviton/Grace GPU instances)', () => {
    expect(checkGpuInstanceTypes(request(['p9g-z900.72xlarge']), [futureArm]).amiType).toBe('AL2023_ARM_64_NVIDIA');
  });

  it('accepts a fractional GPU (Count 0, one logical GPU)', () => {
    const fractional = type('g9f.large', ['x86_64'], [{ Name: 'L4', Manufacturer: 'NVIDIA', Count: 0, LogicalGpuCount: 1, SizeInMiB: 2861 }]);
    expect(checkGpuInstanceTypes(request(['g9f.large']), [fractional]).gpus).toEqual(['g9f.large: 1 × NVIDIA L4, 2861 MiB each']);
  });

  it('names the setting and every problem at once: no GPU, another maker, unknown in the region', () => {
    const message = failure(() =>
      checkGpuInstanceTypes(request(['m7i.large', 'g4ad.xlarge', 'p9-typo.48xlarge', 'p9-z900.48xlarge']), [
        type('m7i.large', ['x86_64']),
        type('g4ad.xlarge', ['x86_64'], [{ Name: 'Radeon Pro V520', Manufacturer: 'AMD', Count: 1, SizeInMiB: 8192 }]),
        futureX86,
      ]),
    );
    expect(message).toBe(
      'cluster.gpuNodeGroups[2].instanceTypes: m7i.large has no NVIDIA GPU (DescribeInstanceTypes reports no GPU); ' +
        'g4ad.xlarge has no NVIDIA GPU (DescribeInstanceTypes reports 1 × AMD Radeon Pro V520); ' +
        'p9-typo.48xlarge is not an instance type EC2 offers in eu-west-1 (DescribeInstanceTypes does not list it)',
    );
  });

  it('refuses one group mixing x86_64 and arm64 types: a node group has one AMI', () => {
    expect(failure(() => checkGpuInstanceTypes(request(['p9-z900.48xlarge', 'p9g-z900.72xlarge']), [futureX86, futureArm]))).toBe(
      'cluster.gpuNodeGroups[2].instanceTypes: mixes CPU architectures (p9-z900.48xlarge x86_64, p9g-z900.72xlarge arm64); a node group has one AMI, so put each architecture in its own group',
    );
  });

  it('refuses an empty list', () => {
    expect(failure(() => checkGpuInstanceTypes(request([]), []))).toBe('cluster.gpuNodeGroups[2].instanceTypes: lists no instance type');
  });
});
