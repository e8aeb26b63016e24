import { describe, expect, it } from 'vitest';
import { awsClientConfigFromEnv, toGpuInfo, toInstanceSummary } from '../../../../lambdas/aws';

describe('awsClientConfigFromEnv', () => {
  it('reads the region and the optional moto endpoint', () => {
    expect(awsClientConfigFromEnv({ AWS_REGION: 'us-east-1' })).toEqual({ region: 'us-east-1' });
    expect(awsClientConfigFromEnv({ AWS_DEFAULT_REGION: 'eu-west-1', AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' })).toEqual({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:5000',
    });
  });
  it('names the variable that is missing or wrong', () => {
    expect(() => awsClientConfigFromEnv({})).toThrow(/AWS_REGION is required/);
    expect(() => awsClientConfigFromEnv({ AWS_REGION: 'mars' })).toThrow(/AWS_REGION="mars" is invalid/);
    expect(() => awsClientConfigFromEnv({ AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: 'localhost:5000' })).toThrow(/AWS_ENDPOINT_URL/);
  });
});

describe('toGpuInfo', () => {
  it('maps EC2 GpuInfo', () => {
    expect(
      toGpuInfo('p4d.24xlarge', {
        Gpus: [{ Name: 'A100', Manufacturer: 'NVIDIA', Count: 8, MemoryInfo: { SizeInMiB: 40960 } }],
        TotalGpuMemoryInMiB: 327680,
      }),
    ).toEqual({
      instanceType: 'p4d.24xlarge',
      gpus: [{ name: 'A100', manufacturer: 'NVIDIA', count: 8, memoryMiB: 40960 }],
      totalMemoryMiB: 327680,
    });
  });
  it('gives no GPUs for types without GpuInfo and sums memory when the total is missing', () => {
    expect(toGpuInfo('t3.large', undefined)).toEqual({ instanceType: 't3.large', gpus: [], totalMemoryMiB: 0 });
    expect(toGpuInfo('x', { Gpus: [{ Name: 'T4', Manufacturer: 'NVIDIA', Count: 2, MemoryInfo: { SizeInMiB: 16384 } }] }).totalMemoryMiB).toBe(32768);
    expect(toGpuInfo('x', { Gpus: [{ Name: 'T4', Count: 0 }] }).gpus).toEqual([]);
  });
});

describe('toInstanceSummary', () => {
  it('flattens the fields we use and the tags', () => {
    expect(
      toInstanceSummary({
        InstanceId: 'i-1',
        InstanceType: 'g5.xlarge',
        Placement: { AvailabilityZone: 'us-east-1a' },
        PrivateDnsName: 'ip-10-0-0-1.ec2.internal',
        State: { Name: 'running' },
        Tags: [{ Key: 'eks:cluster-name', Value: 'prod' }],
      }),
    ).toEqual({
      instanceId: 'i-1',
      instanceType: 'g5.xlarge',
      availabilityZone: 'us-east-1a',
      privateDnsName: 'ip-10-0-0-1.ec2.internal',
      state: 'running',
      tags: { 'eks:cluster-name': 'prod' },
    });
    expect(toInstanceSummary({ InstanceType: 'g5.xlarge' })).toBeUndefined();
  });
});
