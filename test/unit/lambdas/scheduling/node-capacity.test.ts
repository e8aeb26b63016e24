import { describe, expect, it } from 'vitest';
import { nodeCapacity, reclaimedAtMs } from '../../../../lambdas/scheduling/node-capacity';

describe('nodeCapacity', () => {
  it('reads ours first, then Karpenter\'s, then an EKS node group\'s', () => {
    expect(nodeCapacity({ 'gpu.nvidia.com/capacity-type': 'reserved', 'karpenter.sh/capacity-type': 'on-demand' }).type).toBe('reserved');
    expect(nodeCapacity({ 'karpenter.sh/capacity-type': 'spot', 'eks.amazonaws.com/capacityType': 'ON_DEMAND' }).type).toBe('spot');
    expect(nodeCapacity({ 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK' })).toEqual({ type: 'reserved', reservationType: 'capacity-block', reservationEndMs: undefined });
    expect(nodeCapacity({ 'eks.amazonaws.com/capacityType': 'SPOT' }).type).toBe('spot');
    expect(nodeCapacity({}).type).toBeUndefined();
  });

  it('reads the end as whole Unix seconds and nothing else', () => {
    expect(nodeCapacity({ 'gpu.nvidia.com/capacity-reservation-end': '1780311600' }).reservationEndMs).toBe(1_780_311_600_000);
    for (const bad of ['2026-06-01T11:00:00Z', '-5', '1.5', '']) expect(nodeCapacity({ 'gpu.nvidia.com/capacity-reservation-end': bad }).reservationEndMs).toBeUndefined();
  });

  it('takes a node back at the end of a Capacity Block only, never of an ODCR', () => {
    const end = { 'gpu.nvidia.com/capacity-reservation-end': '1780311600' };
    expect(reclaimedAtMs(nodeCapacity({ ...end, 'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block' }))).toBe(1_780_311_600_000);
    expect(reclaimedAtMs(nodeCapacity({ ...end, 'karpenter.k8s.aws/capacity-reservation-type': 'default' }))).toBeUndefined();
    expect(reclaimedAtMs(nodeCapacity({ ...end, 'gpu.nvidia.com/capacity-reservation-type': 'capacity-block', 'karpenter.k8s.aws/capacity-reservation-type': 'default' }))).toBe(1_780_311_600_000);
  });
});
