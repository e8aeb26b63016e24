import { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstanceTypeGpuCatalog, toGpuInfo } from '../../../../lambdas/aws/instance-type-gpu-info';
import { desiredGpuLabels } from '../../../../lambdas/labeler/gpu-labels';
import type { MotoServer } from '../../../../local/aws/moto';
import { awsClientConfig, startMoto } from '../../../../local/aws/moto';

// The labeler knows GPU types only from DescribeInstanceTypes (moto_server
// serves EC2's GpuInfo): families released after this code, with names it
// has never seen, are labelled the day EC2 lists them.
let moto: MotoServer;
let ec2: EC2Client;
beforeAll(async () => {
  moto = await startMoto();
  ec2 = new EC2Client(awsClientConfig(moto.url));
}, 90_000);
afterAll(async () => moto.stop());

const LABELS = { karpenterLabels: false, gfdLabels: false, manufacturers: ['NVIDIA'] };

describe('createInstanceTypeGpuCatalog against moto_server', () => {
  it('labels types no list in this repository names, from what EC2 reports', async () => {
    const found = await createInstanceTypeGpuCatalog(ec2).lookup(['p6-b300.48xlarge', 'g7e.2xlarge', 'g6f.large', 'p9-nonexistent.48xlarge']);
    expect([...found.keys()].sort()).toEqual(['g6f.large', 'g7e.2xlarge', 'p6-b300.48xlarge']);
    const labels = (type: string): Record<string, string> => {
      const info = found.get(type);
      if (info === undefined) throw new Error(`${type} missing`);
      return desiredGpuLabels(info, LABELS);
    };
    expect(labels('p6-b300.48xlarge')).toEqual({
      'gpu.nvidia.com/model': 'B300',
      'gpu.nvidia.com/memory': '275040',
      'gpu.nvidia.com/count': '8',
      'gpu.nvidia.com/manufacturer': 'NVIDIA',
      'gpu.nvidia.com/total-memory': '2200320',
    });
    // EC2's name has spaces; a label value cannot.
    expect(labels('g7e.2xlarge')).toMatchObject({ 'gpu.nvidia.com/model': 'RTX-PRO-Server-6000', 'gpu.nvidia.com/memory': '98304', 'gpu.nvidia.com/count': '1' });
    // A fractional GPU: EC2 says Count 0 and LogicalGpuCount 1; the node has one GPU of the partition's memory.
    expect(labels('g6f.large')).toMatchObject({ 'gpu.nvidia.com/model': 'L4', 'gpu.nvidia.com/memory': '2861', 'gpu.nvidia.com/count': '1', 'gpu.nvidia.com/total-memory': '2861' });
  });
});

describe('toGpuInfo', () => {
  it('drops a GPU entry with neither a count nor a logical count', () => {
    expect(toGpuInfo('x.large', { Gpus: [{ Name: 'L4', Manufacturer: 'NVIDIA', Count: 0, MemoryInfo: { SizeInMiB: 2861 } }] }).gpus).toEqual([]);
  });
});
