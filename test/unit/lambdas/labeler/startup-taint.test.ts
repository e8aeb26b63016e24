import { describe, expect, it } from 'vitest';
import type { V1Node } from '@kubernetes/client-node';
import type { NodeGateway } from '../../../../lambdas/kube';
import { awaitsKarpenterRegistration, KARPENTER_UNREGISTERED_TAINT_KEY, removeStartupTaint, STARTUP_TAINT, startupTaintRemoval } from '../../../../lambdas/labeler/startup-taint';
import { NODE_TAINT } from '../../../../lambdas/scheduling/keys';

const gpu = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };

describe('startupTaintRemoval', () => {
  it('is our own key, NoSchedule', () => {
    expect(STARTUP_TAINT).toEqual({ key: NODE_TAINT.gpuLabelsPending, value: 'true', effect: 'NoSchedule' });
  });

  it('is nothing to do without our taint', () => {
    expect(startupTaintRemoval(undefined)).toBeUndefined();
    expect(startupTaintRemoval([])).toBeUndefined();
    expect(startupTaintRemoval([gpu])).toBeUndefined();
  });

  it('removes only our entry, guarded by a test of its key at that index', () => {
    expect(startupTaintRemoval([gpu, STARTUP_TAINT, { key: 'other', effect: 'NoExecute' }])).toEqual([
      { op: 'test', path: '/spec/taints/1/key', value: NODE_TAINT.gpuLabelsPending },
      { op: 'remove', path: '/spec/taints/1' },
    ]);
  });

  it('removes every effect of our key, from the end so the indices stay right', () => {
    expect(startupTaintRemoval([{ ...STARTUP_TAINT }, gpu, { ...STARTUP_TAINT, effect: 'NoExecute' }])).toEqual([
      { op: 'test', path: '/spec/taints/2/key', value: NODE_TAINT.gpuLabelsPending },
      { op: 'remove', path: '/spec/taints/2' },
      { op: 'test', path: '/spec/taints/0/key', value: NODE_TAINT.gpuLabelsPending },
      { op: 'remove', path: '/spec/taints/0' },
    ]);
  });
});

describe('removeStartupTaint', () => {
  const tainted: V1Node = { metadata: { name: 'gpu-1' }, spec: { taints: [{ ...STARTUP_TAINT }] } };
  const gateway = (error: Error): NodeGateway => ({
    listNodePages: async function* () {},
    listNodes: async () => [],
    readNode: async () => undefined,
    patchNodeMetadata: async () => ({}),
    listNodeEvents: async () => [],
    patchNodeLabels: async () => ({}),
    patchNodeAnnotations: async () => ({}),
    jsonPatchNode: async () => {
      throw error;
    },
  });

  it('lifts nothing, without an error, from a node deleted meanwhile (404)', async () => {
    await expect(removeStartupTaint(gateway(Object.assign(new Error('HTTP 404'), { code: 404 })), tainted)).resolves.toBe(false);
  });

  it('leaves it on a node Karpenter has not registered yet, whose registration would put it back', async () => {
    const held: V1Node = { metadata: { name: 'gpu-1' }, spec: { taints: [{ key: KARPENTER_UNREGISTERED_TAINT_KEY, effect: 'NoExecute' }, { ...STARTUP_TAINT }] } };
    expect(awaitsKarpenterRegistration(held)).toBe(true);
    expect(awaitsKarpenterRegistration(tainted)).toBe(false);
    // The gateway would fail any patch: none is sent.
    await expect(removeStartupTaint(gateway(new Error('no patch expected')), held)).resolves.toBe(false);
  });

  it('still fails on anything else', async () => {
    await expect(removeStartupTaint(gateway(Object.assign(new Error('HTTP 500'), { code: 500 })), tainted)).rejects.toThrow('HTTP 500');
  });
});
