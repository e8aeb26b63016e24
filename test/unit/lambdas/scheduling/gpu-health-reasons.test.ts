import { describe, expect, it } from 'vitest';
import { agentReasonClass, draTaintClass, gpuWarningOf } from '../../../../lambdas/scheduling/gpu-health-reasons';

describe('gpuWarningOf: the GPU warning a Node event carries', () => {
  it('reads the agent\'s shape: reason the condition type, message "<Reason>: <detail>"', () => {
    expect(gpuWarningOf('AcceleratedHardwareReady', 'NvidiaXID13Warning: detected XID-13 on the instance')).toEqual({ reason: 'NvidiaXID13Warning', detail: 'detected XID-13 on the instance' });
    expect(gpuWarningOf('AcceleratedHardwareReady', 'NvidiaThermalError')).toEqual({ reason: 'NvidiaThermalError', detail: '' });
    expect(gpuWarningOf('AcceleratedHardwareReady', 'DCGMHealthCode23: PCIe replay')).toMatchObject({ reason: 'DCGMHealthCode23' });
  });

  it('reads an event whose own reason is the fault', () => {
    expect(gpuWarningOf('NvidiaPCIeError', 'replays')).toEqual({ reason: 'NvidiaPCIeError', detail: 'replays' });
  });

  it('ignores every other event: fatal reasons (they are conditions), other conditions, other texts', () => {
    expect(gpuWarningOf('AcceleratedHardwareReady', 'NvidiaXID79Error: fell off the bus')).toBeUndefined();
    expect(gpuWarningOf('KernelReady', 'NvidiaXID13Warning: x')).toBeUndefined();
    expect(gpuWarningOf('AcceleratedHardwareReady', 'NvidiaGPUIsReady: Monitoring for the Nvidia GPU system is active')).toBeUndefined();
    expect(gpuWarningOf('Nominated', 'Pod should schedule on: nodeclaim/x')).toBeUndefined();
  });
});

describe('health classes', () => {
  it('puts each of the agent\'s GPU reasons in a bounded class', () => {
    expect(['NvidiaXID79Error', 'NvidiaXID13Warning'].map(agentReasonClass)).toEqual(['Xid', 'Xid']);
    expect(['NvidiaDoubleBitError', 'NvidiaPageRetirement'].map(agentReasonClass)).toEqual(['Memory', 'Memory']);
    expect(['NvidiaNVLinkError', 'NvidiaFabricError', 'FabricManagerNotRunning', 'NvidiaPCIeError'].map(agentReasonClass)).toEqual(Array(4).fill('Interconnect'));
    expect(['DCGMDiagnosticFailure', 'DCGMError', 'DCGMHealthCode3', 'DCGMFieldError230'].map(agentReasonClass)).toEqual(Array(4).fill('Diagnostics'));
    expect(agentReasonClass('NvidiaDeviceCountMismatch')).toBe('DeviceCount');
    expect(agentReasonClass('NvidiaNCCLError')).toBe('Collective');
    expect(agentReasonClass('NeuronDMAError')).toBe('Other');
  });

  it('puts the DRA driver\'s taints in classes', () => {
    expect(['gpu.nvidia.com/xid', 'gpu.nvidia.com/gpu-lost', 'gpu.nvidia.com/unmonitored', 'example.com/x'].map(draTaintClass)).toEqual(['Xid', 'GpuLost', 'Unmonitored', 'Other']);
  });
});
