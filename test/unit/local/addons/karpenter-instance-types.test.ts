import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, type EC2Client, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { describeKarpenterInstanceTypes } from '../../../../local/addons/karpenter-instance-types';

// DescribeInstanceTypes' answer for p5.48xlarge as EC2 (and moto) give it.
const P5: InstanceTypeInfo = {
  InstanceType: 'p5.48xlarge',
  VCpuInfo: { DefaultVCpus: 192 },
  MemoryInfo: { SizeInMiB: 2097152 },
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  GpuInfo: { Gpus: [{ Name: 'H100', Manufacturer: 'NVIDIA', Count: 8, MemoryInfo: { SizeInMiB: 81920 } }], TotalGpuMemoryInMiB: 655360 },
};

/** An EC2 client answering the two calls from fixed data: the shape of the output is what is tested here (the e2e test reads moto). */
function ec2With(types: InstanceTypeInfo[], zones: string[]): EC2Client {
  const send = (command: unknown): Promise<unknown> => {
    if (command instanceof DescribeInstanceTypesCommand) {
      const wanted = new Set<string>(command.input.InstanceTypes ?? []);
      return Promise.resolve({ InstanceTypes: types.filter((t) => wanted.has(t.InstanceType ?? '')) });
    }
    if (command instanceof DescribeInstanceTypeOfferingsCommand) return Promise.resolve({ InstanceTypeOfferings: zones.map((Location) => ({ Location })) });
    return Promise.reject(new Error('unexpected EC2 call'));
  };
  return { send } as unknown as EC2Client;
}

describe('describeKarpenterInstanceTypes', () => {
  it("writes the kwok provider's entry with EC2's numbers, one on-demand offering per zone, and the AWS provider's labels", async () => {
    const [p5] = await describeKarpenterInstanceTypes(ec2With([P5], ['us-east-1a', 'us-east-1c', 'us-east-1d']), [{ instanceType: 'p5.48xlarge' }]);
    expect(p5?.labels).toEqual({
      'karpenter.k8s.aws/instance-category': 'p',
      'karpenter.k8s.aws/instance-family': 'p5',
      'karpenter.k8s.aws/instance-generation': '5',
      'karpenter.k8s.aws/instance-size': '48xlarge',
      'karpenter.k8s.aws/instance-cpu': '192',
      'karpenter.k8s.aws/instance-memory': '2097152',
      'karpenter.k8s.aws/instance-gpu-name': 'h100',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.k8s.aws/instance-gpu-count': '8',
      'karpenter.k8s.aws/instance-gpu-memory': '81920',
    });
    expect(p5?.kwok).toMatchObject({
      name: 'p5.48xlarge',
      architecture: 'amd64',
      operatingSystems: ['linux'],
      resources: { cpu: '192', memory: '2097152Mi', pods: '110', 'nvidia.com/gpu': '8' },
    });
    // us-east-1d is offered but not asked for (default a/b/c); 1b is asked for but not offered.
    expect(p5?.kwok.offerings.map((o) => o.Requirements.find((r) => r.key === 'topology.kubernetes.io/zone')?.values)).toEqual([['us-east-1a'], ['us-east-1c']]);
    for (const offering of p5?.kwok.offerings ?? []) {
      expect(offering).toMatchObject({ Price: 55.04, Available: true });
      expect(offering.Requirements).toContainEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] });
      expect(offering.Requirements).toContainEqual({ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['h100'] });
    }
  });

  it('says which type EC2 does not know, which has no price, and which is offered in none of the zones', async () => {
    const ec2 = ec2With([P5, { ...P5, InstanceType: 'p5.4xlarge' }], ['us-east-1a']);
    await expect(describeKarpenterInstanceTypes(ec2, [{ instanceType: 'p9.48xlarge' }])).rejects.toThrow(/does not know instance type p9\.48xlarge/);
    await expect(describeKarpenterInstanceTypes(ec2, [{ instanceType: 'p5.4xlarge' }])).rejects.toThrow(/no on-demand price for p5\.4xlarge/);
    await expect(describeKarpenterInstanceTypes(ec2, [{ instanceType: 'p5.48xlarge', zones: ['us-east-1f'] }])).rejects.toThrow(/offers p5\.48xlarge in none of us-east-1f/);
    await expect(describeKarpenterInstanceTypes(ec2, [])).rejects.toThrow(/at least one instance type/);
  });
});
