import { describe, expect, it } from 'vitest';
import { nodeStatus, nodeToCreate, podToCreate, priorityClassesFor } from '../../../simulator/exact-objects';
import { parseSchedPod } from '../../../simulator/in-tree/pod-spec';

describe('the dump\'s objects as --exact creates them', () => {
  const node = {
    metadata: { name: 'n1', uid: 'u', resourceVersion: '7', labels: { zone: 'a' }, managedFields: [{}] },
    spec: { taints: [{ key: 'k', effect: 'NoSchedule' }], unschedulable: true, providerID: 'aws:///i-1' },
    status: { allocatable: { cpu: '4', 'nvidia.com/gpu': '1' }, capacity: { cpu: '4', 'nvidia.com/gpu': '1' }, conditions: [{ type: 'Ready', status: 'False' }] },
  };

  it('keeps a node\'s labels, taints and cordon, and writes its allocatable with Ready (no kubelet would)', () => {
    expect(nodeToCreate(node)).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'a' } }, spec: { taints: node.spec.taints, unschedulable: true } });
    const status = nodeStatus(node).status as { allocatable: unknown; conditions: { type: string; status: string }[] };
    expect(status.allocatable).toEqual(node.status.allocatable);
    expect(status.conditions.map((c) => [c.type, c.status])).toEqual([['Ready', 'True']]);
  });

  it('keeps the node monitoring agent\'s conditions, which the GpuHealth filter reads, and no other', () => {
    const failing = { type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus' };
    const sick = { ...node, status: { ...node.status, conditions: [...node.status.conditions, failing, { type: 'MemoryPressure', status: 'False' }] } };
    const status = nodeStatus(sick).status as { conditions: { type: string; status: string }[] };
    expect(status.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['AcceleratedHardwareReady', 'False'],
    ]);
    expect(status.conditions[1]).toEqual(failing);
  });

  it('drops what the API server would refuse or its controllers remove: owners, computed priority; a pending pod has no node', () => {
    const raw = {
      metadata: { name: 'p', namespace: 'ml', uid: 'x', ownerReferences: [{ kind: 'ReplicaSet' }], labels: { app: 'a' } },
      spec: { schedulerName: 'gpu-scheduler', priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never', containers: [{ name: 'c' }] },
      status: { phase: 'Pending' },
    };
    expect(podToCreate(parseSchedPod(raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ml', labels: { app: 'a' } },
      // The API server requires an image; scheduling never reads it.
      spec: { schedulerName: 'gpu-scheduler', priorityClassName: 'high', containers: [{ name: 'c', image: 'simulated' }] },
    });
    expect(priorityClassesFor([parseSchedPod(raw), parseSchedPod({ ...raw, spec: { ...raw.spec, priorityClassName: 'system-node-critical' } })])).toEqual([
      { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' },
    ]);
  });
});
