import type { CoreV1Event, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planGpuHealthLabels, reasonsText, rewriteKey } from '../../../../lambdas/reconciler/gpu-health-labels';
import { draInventoryFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode } from '../scheduling/kube-objects';
import { DRA_GPUS, nvidiaGpuDevice, nvidiaResourceSlice } from '../../../../local/addons/dra-gpu-driver';

const NOW = new Date('2026-12-01T12:00:00Z');
const HOUR = 60 * 60_000;
const SETTINGS = { windowMs: HOUR };

const node = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): V1Node => {
  const n = gpuNode(name, { labels }) as V1Node;
  return { ...n, metadata: { ...n.metadata, annotations } };
};

/** A Warning event about a Node as the node monitoring agent writes it: reason the condition type, message `<Reason>: <detail>`. */
const agentWarning = (nodeName: string, message: string, minutesAgo: number, count = 1): CoreV1Event => ({
  metadata: { name: `${nodeName}.${minutesAgo}`, namespace: 'default' },
  involvedObject: { kind: 'Node', name: nodeName },
  type: 'Warning',
  reason: 'AcceleratedHardwareReady',
  message,
  count,
  source: { component: 'eks-node-monitoring-agent' },
  lastTimestamp: new Date(NOW.getTime() - minutesAgo * 60_000),
});

describe('planGpuHealthLabels', () => {
  it('labels a node with GPU warnings of the window degraded, with what, how often and when; ignores other and older events', () => {
    const events = [
      agentWarning('a', 'NvidiaXID13Warning: Graphics SM Warp Exception', 5, 3),
      agentWarning('a', 'NvidiaThermalError: GPU 2 throttled', 20),
      agentWarning('b', 'NvidiaPCIeError: replays', 61),
      { ...agentWarning('b', 'NvidiaPCIeError: replays', 1), type: 'Normal' },
      { ...agentWarning('b', 'something else', 1), reason: 'Rebooted' },
    ];
    const plan = planGpuHealthLabels([node('a'), node('b')], events, new Map(), NOW, SETTINGS);
    expect(plan.changes).toEqual([
      { node: 'a', label: 'degraded', reasons: 'NvidiaXID13Warning x3, last 2026-12-01T11:55:00Z; NvidiaThermalError, last 2026-12-01T11:40:00Z' },
    ]);
    expect(plan.degradedClasses.get('a')).toEqual(['Xid', 'ThermalPower']);
    expect(plan.nodesAfter[0]?.metadata?.labels?.['gpu.nvidia.com/health']).toBe('degraded');
    expect(plan.nodesAfter[1]?.metadata?.labels?.['gpu.nvidia.com/health']).toBeUndefined();
  });

  it('takes the label and the annotation off a quiet node, and only when the events could be read', () => {
    const sick = node('a', { 'gpu.nvidia.com/health': 'degraded' }, { 'gpu.nvidia.com/health-reasons': 'NvidiaPCIeError, last 2026-12-01T10:00:00Z' });
    expect(planGpuHealthLabels([sick], [], new Map(), NOW, SETTINGS).changes).toEqual([{ node: 'a', label: null, reasons: null }]);
    const unread = planGpuHealthLabels([sick], [], new Map(), NOW, SETTINGS, false);
    expect(unread.changes).toEqual([]);
    expect(unread.degradedClasses.get('a')).toEqual(['Other']);
  });

  it('does not rewrite a node for a warning that only repeats, but does when a new kind appears', () => {
    const first = planGpuHealthLabels([node('a')], [agentWarning('a', 'NvidiaXID13Warning: x', 10)], new Map(), NOW, SETTINGS).nodesAfter;
    expect(planGpuHealthLabels(first, [agentWarning('a', 'NvidiaXID13Warning: x', 9, 4)], new Map(), NOW, SETTINGS).changes).toEqual([]);
    const more = planGpuHealthLabels(first, [agentWarning('a', 'NvidiaXID13Warning: x', 9), agentWarning('a', 'NvidiaPowerError: y', 1)], new Map(), NOW, SETTINGS);
    expect(more.changes.map((c) => c.node)).toEqual(['a']);
  });

  it('names DRA device taints of effect None on a DRA node', () => {
    const draNode: V1Node = { metadata: { name: 'd', labels: {} }, status: { allocatable: { cpu: '96', memory: '1Ti', pods: '110' } } };
    const devices = [nvidiaGpuDevice(0, DRA_GPUS.h100), { ...nvidiaGpuDevice(1, DRA_GPUS.h100), taints: [{ key: 'gpu.nvidia.com/unmonitored', effect: 'None', timeAdded: '2026-12-01T11:30:00Z' }] }];
    const slice = { ...nvidiaResourceSlice('d', 0, DRA_GPUS.h100, { devices }), metadata: { name: 'd-gpu.nvidia.com-x' } };
    const dra = draInventoryFromKubernetes([slice]).gpusByNode;
    const plan = planGpuHealthLabels([draNode], [], dra, NOW, SETTINGS);
    expect(plan.changes).toEqual([{ node: 'd', label: 'degraded', reasons: 'DRA gpu-1 gpu.nvidia.com/unmonitored (None), last 2026-12-01T11:30:00Z' }]);
    expect(plan.degradedClasses.get('d')).toEqual(['Unmonitored']);
  });
});

describe('reasonsText and rewriteKey', () => {
  it('lists the latest first, at most eight, the rest counted', () => {
    const summaries = Array.from({ length: 10 }, (_, i) => ({ what: `NvidiaXID${i}Warning`, class: 'Xid' as const, count: 1, last: NOW.getTime() - i * 60_000 }));
    const text = reasonsText(summaries);
    expect(text.startsWith('NvidiaXID0Warning, last 2026-12-01T12:00:00Z; NvidiaXID1Warning')).toBe(true);
    expect(text.endsWith('; and 2 more')).toBe(true);
  });

  it('reads two annotations alike when only counts or times within 15 minutes differ', () => {
    expect(rewriteKey('NvidiaPCIeError x2, last 2026-12-01T11:46:00Z')).toBe(rewriteKey('NvidiaPCIeError x9, last 2026-12-01T11:52:00Z'));
    expect(rewriteKey('NvidiaPCIeError, last 2026-12-01T11:40:00Z')).not.toBe(rewriteKey('NvidiaPCIeError, last 2026-12-01T11:50:00Z'));
  });
});
