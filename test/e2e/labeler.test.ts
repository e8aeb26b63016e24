// The node labeler against moto (EC2) and the real kube-apiserver, running as
// the labeler's least-privilege RBAC identity. Events are the EventBridge
// shapes the Lambda receives.
import { ModifyInstanceAttributeCommand, StartInstancesCommand, StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { METRIC } from '../../lambdas/observability/metric-catalog';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { buildLabeler, gpuLabelsOf, launchInstance, registerNode, stateChangeEvent } from './labeler-support';

const h = e2eHarness();
const created: { name: string; instanceId: string }[] = [];

async function gpuNode(instanceType: string, labels?: Record<string, string>): Promise<GpuNode> {
  const node = await createGpuNode(h.nodeClients, { instanceType, ...(labels ? { labels } : {}) });
  created.push(node);
  return node;
}

afterAll(async () => {
  // Other e2e files share this apiserver: leave no GPU nodes behind.
  for (const node of created) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
});

/** What EC2 says about these types (DESIGN.md), as the labels must read. */
const EXPECTED: Record<string, Record<string, string>> = {
  'p4d.24xlarge': {
    'gpu.nvidia.com/model': 'A100',
    'gpu.nvidia.com/memory': '40960',
    'gpu.nvidia.com/count': '8',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '327680',
  },
  'p5.48xlarge': {
    'gpu.nvidia.com/model': 'H100',
    'gpu.nvidia.com/memory': '81920',
    'gpu.nvidia.com/count': '8',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '655360',
  },
  'g5.12xlarge': {
    'gpu.nvidia.com/model': 'A10G',
    'gpu.nvidia.com/memory': '22888',
    'gpu.nvidia.com/count': '4',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '91552',
  },
  'g4dn.xlarge': {
    'gpu.nvidia.com/model': 'T4',
    'gpu.nvidia.com/memory': '16384',
    'gpu.nvidia.com/count': '1',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '16384',
  },
  // Families no list in this repository names: labelled from DescribeInstanceTypes alone.
  'p6-b300.48xlarge': {
    'gpu.nvidia.com/model': 'B300',
    'gpu.nvidia.com/memory': '275040',
    'gpu.nvidia.com/count': '8',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '2200320',
  },
  // A fractional GPU (1/8 of an L4): EC2 says Count 0, LogicalGpuCount 1.
  'g6f.large': {
    'gpu.nvidia.com/model': 'L4',
    'gpu.nvidia.com/memory': '2861',
    'gpu.nvidia.com/count': '1',
    'gpu.nvidia.com/manufacturer': 'NVIDIA',
    'gpu.nvidia.com/total-memory': '2861',
  },
  't3.large': {},
};

describe('state-change event for a running instance', () => {
  it.each(Object.keys(EXPECTED))('labels a %s node with exactly its GPU facts', async (instanceType) => {
    const labeler = buildLabeler(h);
    const node = await gpuNode(instanceType);
    const before = await h.core.readNode({ name: node.name });

    const result = await labeler.handler(stateChangeEvent(node.instanceId, 'running', new Date(Date.now() - 5_000).toISOString()));

    const after = await h.core.readNode({ name: node.name });
    expect(gpuLabelsOf(after)).toEqual(EXPECTED[instanceType]);
    // Labels of others (set at registration) are untouched.
    const foreign = Object.fromEntries(Object.entries(before.metadata?.labels ?? {}));
    expect(after.metadata?.labels).toMatchObject(foreign);
    if (instanceType === 't3.large') {
      expect(result).toMatchObject({ kind: 'instance', result: 'alreadyCorrect', nodeName: node.name });
      expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    } else {
      expect(result).toMatchObject({ kind: 'instance', result: 'labeled', nodeName: node.name });
      expect(labeler.telemetry.record).toHaveBeenCalledWith(METRIC.nodesLabeled, 1);
      const timeToLabel = vi.mocked(labeler.telemetry.record).mock.calls.find(([metric]) => metric === METRIC.timeToLabel);
      expect(timeToLabel?.[1]).toBeGreaterThanOrEqual(5_000);
    }
  });

  it('adds the Karpenter- and GFD-style keys when switched on', async () => {
    const labeler = buildLabeler(h, { LABEL_KARPENTER_COMPAT: 'true', LABEL_GFD_COMPAT: 'true' });
    const node = await gpuNode('p5.48xlarge');
    await labeler.handler(stateChangeEvent(node.instanceId));
    expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))).toEqual({
      ...EXPECTED['p5.48xlarge'],
      'karpenter.k8s.aws/instance-gpu-name': 'h100',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.k8s.aws/instance-gpu-count': '8',
      'karpenter.k8s.aws/instance-gpu-memory': '81920',
      'nvidia.com/gpu.product': 'NVIDIA-H100',
      'nvidia.com/gpu.count': '8',
      'nvidia.com/gpu.memory': '81920',
      'nvidia.com/gpu.family': 'hopper',
    });
  });
});

describe('ownership and write discipline', () => {
  it('keeps foreign labels, corrects stale ones of ours, and a second run writes nothing', async () => {
    const labeler = buildLabeler(h);
    const node = await gpuNode('g5.12xlarge', {
      team: 'ml-research',
      'gpu.nvidia.com/model': 'T4',
      'gpu.nvidia.com/count': '2',
      'karpenter.k8s.aws/instance-gpu-name': 'set-by-karpenter',
    });

    const first = await labeler.handler(stateChangeEvent(node.instanceId));
    expect(first).toMatchObject({ result: 'labeled', patch: { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '4' } });
    const labeled = await h.core.readNode({ name: node.name });
    expect(labeled.metadata?.labels).toMatchObject({
      team: 'ml-research',
      // Compatibility keys are not ours while switched off: Karpenter's value stays.
      'karpenter.k8s.aws/instance-gpu-name': 'set-by-karpenter',
      ...EXPECTED['g5.12xlarge'],
    });

    const second = await labeler.handler(stateChangeEvent(node.instanceId));
    expect(second).toMatchObject({ result: 'alreadyCorrect' });
    expect(labeler.telemetry.record).toHaveBeenCalledWith(METRIC.labelsAlreadyCorrect, 1);
    const after = await h.core.readNode({ name: node.name });
    expect(after.metadata?.resourceVersion).toBe(labeled.metadata?.resourceVersion);
    // The instance type's GPU facts were asked of EC2 once and then served from the warm container's cache.
    expect(labeler.ec2Calls.filter((c) => c === 'DescribeInstanceTypesCommand')).toHaveLength(1);
    expect(labeler.ec2Calls.filter((c) => c === 'DescribeInstancesCommand')).toHaveLength(2);
  });

  it('removes its labels when a stop/start changed the instance to a type without GPUs', async () => {
    const labeler = buildLabeler(h);
    const node = await gpuNode('g4dn.xlarge', { team: 'infra' });
    await labeler.handler(stateChangeEvent(node.instanceId));
    expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))).toEqual(EXPECTED['g4dn.xlarge']);

    await h.ec2.send(new StopInstancesCommand({ InstanceIds: [node.instanceId] }));
    await h.ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: node.instanceId, InstanceType: { Value: 't3.large' } }));
    await h.ec2.send(new StartInstancesCommand({ InstanceIds: [node.instanceId] }));
    const result = await labeler.handler(stateChangeEvent(node.instanceId));

    expect(result).toMatchObject({ result: 'labeled' });
    const after = await h.core.readNode({ name: node.name });
    expect(gpuLabelsOf(after)).toEqual({});
    expect(after.metadata?.labels?.team).toBe('infra');
  });
});

describe('instances without a node', () => {
  it('waits for the node to register, then labels it in the same invocation', async () => {
    const labeler = buildLabeler(h, { NODE_REGISTRATION_POLL_MAX: '500ms' });
    const instance = await launchInstance(h.ec2, 'p4d.24xlarge');
    created.push({ name: instance.privateDnsName, instanceId: instance.instanceId });

    const pending = labeler.handler(stateChangeEvent(instance.instanceId));
    // A GET that finds nothing is how the labeler learns the node is not there yet.
    await vi.waitFor(() => expect(labeler.nodeReads.count).toBeGreaterThan(1), { timeout: 10_000 });
    await registerNode(h.core, instance);

    await expect(pending).resolves.toMatchObject({ result: 'labeled', nodeName: instance.privateDnsName });
    expect(gpuLabelsOf(await h.core.readNode({ name: instance.privateDnsName }))).toEqual(EXPECTED['p4d.24xlarge']);
    expect(vi.mocked(labeler.telemetry.record).mock.calls.filter(([metric]) => metric === METRIC.labelerErrors)).toEqual([]);
  });

  it('with no time to wait, reports the node as not registered (a counted outcome, not an error)', async () => {
    const labeler = buildLabeler(h, { NODE_REGISTRATION_WAIT: '0s' });
    const instance = await launchInstance(h.ec2, 'g4dn.xlarge');
    await expect(labeler.handler(stateChangeEvent(instance.instanceId))).resolves.toMatchObject({ result: 'notRegistered', looks: 1 });
    expect(labeler.telemetry.record).toHaveBeenCalledWith(METRIC.nodesNotRegistered, 1);
    await h.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instance.instanceId] }));
  });

  it('finds a node by private DNS name when it has no providerID yet', async () => {
    const labeler = buildLabeler(h);
    const instance = await launchInstance(h.ec2, 'g4dn.xlarge');
    created.push({ name: instance.privateDnsName, instanceId: instance.instanceId });
    await h.core.createNode({ body: { metadata: { name: instance.privateDnsName } } });
    expect(await labeler.handler(stateChangeEvent(instance.instanceId))).toMatchObject({ result: 'labeled' });
    expect(gpuLabelsOf(await h.core.readNode({ name: instance.privateDnsName }))).toEqual(EXPECTED['g4dn.xlarge']);
  });

  it('ignores an instance of another cluster (info log, nothing written, no retry)', async () => {
    const labeler = buildLabeler(h);
    const info = vi.spyOn(console, 'info');
    const instance = await launchInstance(h.ec2, 'g5.12xlarge', { 'eks:cluster-name': 'some-other-cluster' });
    await expect(labeler.handler(stateChangeEvent(instance.instanceId))).resolves.toMatchObject({ result: 'ignored', reason: 'notInCluster' });
    expect(info.mock.calls.some((args) => String(args[0]).includes('nothing to label'))).toBe(true);
    await h.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instance.instanceId] }));
    info.mockRestore();
  });

  it('ignores a terminated instance, and one EC2 does not know', async () => {
    const labeler = buildLabeler(h);
    const instance = await launchInstance(h.ec2, 'g5.12xlarge');
    await h.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instance.instanceId] }));
    await expect(labeler.handler(stateChangeEvent(instance.instanceId))).resolves.toMatchObject({ result: 'ignored', reason: 'instanceTerminated' });
    await expect(labeler.handler(stateChangeEvent('i-0123456789abcdef0'))).resolves.toMatchObject({ result: 'ignored', reason: 'instanceNotFound' });
  });
});

describe('malformed and foreign events', () => {
  it.each([
    ['a foreign source', { ...stateChangeEvent('i-0123456789abcdef0'), source: 'com.example.app' }],
    ['a missing instance-id', { ...stateChangeEvent('i-0123456789abcdef0'), detail: { state: 'running' } }],
    ['a malformed instance-id', { ...stateChangeEvent('i-0123456789abcdef0'), detail: { 'instance-id': 42, state: 'running' } }],
    ['another detail-type', { ...stateChangeEvent('i-0123456789abcdef0'), 'detail-type': 'AWS API Call via CloudTrail' }],
    ['null', null],
    ['a string', 'EC2 Instance State-change Notification'],
  ])('rejects %s with a clear log line, without throwing or calling AWS', async (_label, event) => {
    const labeler = buildLabeler(h);
    const error = vi.spyOn(console, 'error');
    const result = await labeler.handler(event);
    expect(result).toMatchObject({ kind: 'rejected' });
    expect(error.mock.calls.some((args) => String(args[0]).includes('rejected event'))).toBe(true);
    expect(labeler.telemetry.record).toHaveBeenCalledWith(METRIC.labelerErrors, 1, { Kind: 'InvalidEvent' });
    expect(labeler.ec2Calls).toEqual([]);
    error.mockRestore();
  });

  it('ignores state-changes other than running', async () => {
    const labeler = buildLabeler(h);
    await expect(labeler.handler(stateChangeEvent('i-0123456789abcdef0', 'stopping'))).resolves.toMatchObject({
      result: 'ignored',
      reason: 'instanceNotRunning',
    });
    expect(labeler.ec2Calls).toEqual([]);
  });
});
