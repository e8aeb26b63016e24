import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGpuInstanceTypesHandler, GPU_INSTANCE_TYPES_SERVICE } from '../../../../lambdas/gpu-instance-types/gpu-instance-types-handler';
import type { MotoServer } from '../../../../local/aws/moto';
import { awsEnvironment, startMoto } from '../../../../local/aws/moto';
import { expectInvocationContext, invocationContext, logLines, onDemandContainer } from '../observability/lambda-invocation';
import type { StdoutCapture } from '../observability/stdout-capture';
import { captureStdout } from '../observability/stdout-capture';

// The custom resource's onEvent handler against moto_server's EC2, whose
// DescribeInstanceTypes carries EC2's own GpuInfo for 65 types, including
// families newer than any hand list this project ever had.
let moto: MotoServer;
beforeAll(async () => {
  moto = await startMoto();
  // The SDK's credential chain reads process.env, as in Lambda.
  for (const [key, value] of Object.entries(awsEnvironment(moto.url))) vi.stubEnv(key, value);
}, 90_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  await moto.stop();
});

const SETTING = 'cluster.gpuNodeGroups[0].instanceTypes';

function event(requestType: 'Create' | 'Update' | 'Delete', instanceTypes: unknown, physicalResourceId = `gpu-instance-types:${SETTING}`): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/GpuScheduling/1',
    RequestId: 'request-1',
    LogicalResourceId: 'GpuInstanceTypesgpu',
    ResourceType: 'Custom::GpuInstanceTypes',
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework', Setting: SETTING, InstanceTypes: instanceTypes },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' } as CloudFormationCustomResourceEvent;
  return { ...common, RequestType: requestType, PhysicalResourceId: physicalResourceId, OldResourceProperties: common.ResourceProperties } as CloudFormationCustomResourceEvent;
}

let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  capture = undefined;
});

/** A fresh handler, each call one invocation with its own Lambda context. */
function handler(env: Record<string, string> = awsEnvironment(moto.url)) {
  const invoke = createGpuInstanceTypesHandler({ env });
  let invocation = 0;
  return (e: CloudFormationCustomResourceEvent) => invoke(e, invocationContext('gpu-instance-types', `req-${++invocation}`));
}

/** The `GPU instance types accepted` line written since `capture` began. */
function acceptedLine(): Record<string, unknown> | undefined {
  return logLines(capture?.records() ?? []).find((l) => l.message === 'GPU instance types accepted');
}

describe('GPU instance types custom resource (moto_server EC2)', () => {
  it.each([
    [['p6-b300.48xlarge'], 'AL2023_x86_64_NVIDIA'],
    [['g7e.2xlarge', 'g7e.48xlarge'], 'AL2023_x86_64_NVIDIA'],
    [['g6f.large', 'gr6f.4xlarge'], 'AL2023_x86_64_NVIDIA'],
    [['g5.xlarge', 'p5.48xlarge', 'g6e.xlarge'], 'AL2023_x86_64_NVIDIA'],
    [['g5g.xlarge', 'g5g.16xlarge'], 'AL2023_ARM_64_NVIDIA'],
  ])('accepts %j from what DescribeInstanceTypes reports and answers AmiType %s', async (instanceTypes, amiType) => {
    capture = captureStdout();
    expect(await handler()(event('Create', instanceTypes))).toEqual({ PhysicalResourceId: `gpu-instance-types:${SETTING}`, Data: { AmiType: amiType } });
    expect(acceptedLine()).toMatchObject({ setting: SETTING, amiType });
  });

  it('logs what EC2 says about each GPU', async () => {
    capture = captureStdout();
    await handler()(event('Create', ['p6-b300.48xlarge', 'g6f.large']));
    expect(acceptedLine()).toMatchObject({ gpus: ['p6-b300.48xlarge: 8 × NVIDIA B300, 275040 MiB each', 'g6f.large: 1 × NVIDIA L4, 2861 MiB each'] });
  });

  it('fails the deployment, naming the setting, for types without an NVIDIA GPU or unknown to EC2', async () => {
    await expect(handler()(event('Create', ['m7i.large', 'g4ad.xlarge', 'p9-nonexistent.48xlarge', 'g5.xlarge']))).rejects.toThrow(
      'cluster.gpuNodeGroups[0].instanceTypes: m7i.large has no NVIDIA GPU (DescribeInstanceTypes reports no GPU); ' +
        'g4ad.xlarge has no NVIDIA GPU (DescribeInstanceTypes reports 1 × AMD Radeon Pro V520); ' +
        'p9-nonexistent.48xlarge is not an instance type EC2 offers in us-east-1 (DescribeInstanceTypes does not list it)',
    );
  });

  it('fails a group that mixes x86_64 and arm64 types', async () => {
    await expect(handler()(event('Create', ['g5.xlarge', 'g5g.xlarge']))).rejects.toThrow('mixes CPU architectures (g5.xlarge x86_64, g5g.xlarge arm64)');
  });

  it('checks again on update and keeps the physical id', async () => {
    expect(await handler()(event('Update', ['g6.xlarge'], 'kept-id'))).toEqual({ PhysicalResourceId: 'kept-id', Data: { AmiType: 'AL2023_x86_64_NVIDIA' } });
    await expect(handler()(event('Update', ['t3.large'], 'kept-id'))).rejects.toThrow('t3.large has no NVIDIA GPU');
  });

  it('deletes without asking EC2 (no environment needed), so a stack delete never waits on it', async () => {
    expect(await handler({})(event('Delete', ['m7i.large'], 'gone'))).toEqual({ PhysicalResourceId: 'gone' });
  });

  it('rejects malformed properties with a message', async () => {
    await expect(handler()(event('Create', 'g5.xlarge'))).rejects.toThrow('cluster.gpuNodeGroups[0].instanceTypes: the custom resource needs InstanceTypes, a list of instance type names');
  });

  it('logs through Powertools with the Lambda context of each invocation', async () => {
    onDemandContainer();
    const invoke = handler();
    capture = captureStdout();
    await invoke(event('Create', ['g5.xlarge']));
    const first = logLines(capture.records());
    expectInvocationContext(first, invocationContext('gpu-instance-types', 'req-1'), true);
    expect(first[0]).toMatchObject({ service: GPU_INSTANCE_TYPES_SERVICE, level: 'INFO' });
    capture.restore();
    capture = captureStdout();
    await invoke(event('Update', ['g6.xlarge'], 'kept-id'));
    expectInvocationContext(logLines(capture.records()), invocationContext('gpu-instance-types', 'req-2'), false);
    vi.unstubAllEnvs();
    for (const [key, value] of Object.entries(awsEnvironment(moto.url))) vi.stubEnv(key, value);
  });
});
