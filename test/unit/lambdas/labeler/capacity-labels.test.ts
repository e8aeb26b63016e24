import { describe, expect, it } from 'vitest';
import type { CapacityReservationSummary, InstanceSummary } from '../../../../lambdas/aws';
import { desiredCapacityLabels, ec2CapacityType, withCapacityLabels } from '../../../../lambdas/labeler/capacity-labels';

const instance = (extra: Partial<InstanceSummary> = {}): InstanceSummary => ({
  instanceId: 'i-0123456789abcdef0',
  instanceType: 'p5.48xlarge',
  availabilityZone: 'us-east-1a',
  privateDnsName: 'ip-10-0-0-1.ec2.internal',
  state: 'running',
  tags: {},
  ...extra,
});
const reservation = (extra: Partial<CapacityReservationSummary> = {}): CapacityReservationSummary => ({
  id: 'cr-1',
  reservationType: 'capacity-block',
  endDate: new Date('2026-06-01T11:30:00.900Z'),
  instanceType: 'p5.48xlarge',
  totalInstanceCount: 2,
  availableInstanceCount: 0,
  state: 'active',
  ...extra,
});

describe('ec2CapacityType', () => {
  it('is reserved in a reservation or a capacity-block lifecycle, spot for spot, else on-demand', () => {
    expect(ec2CapacityType(instance({ capacityReservationId: 'cr-1' }))).toBe('reserved');
    expect(ec2CapacityType(instance({ lifecycle: 'capacity-block' }))).toBe('reserved');
    expect(ec2CapacityType(instance({ lifecycle: 'spot' }))).toBe('spot');
    expect(ec2CapacityType(instance())).toBe('on-demand');
  });
});

describe('desiredCapacityLabels', () => {
  it('labels a block instance reserved, its type and its end in whole Unix seconds', () => {
    expect(desiredCapacityLabels(instance({ capacityReservationId: 'cr-1' }), reservation(), {})).toEqual({
      'gpu.nvidia.com/capacity-type': 'reserved',
      'gpu.nvidia.com/capacity-reservation-type': 'capacity-block',
      'gpu.nvidia.com/capacity-reservation-end': String(Date.parse('2026-06-01T11:30:00Z') / 1000),
    });
  });

  it('writes no type where Karpenter or an EKS node group already says the same, and one where they say otherwise', () => {
    const inBlock = instance({ capacityReservationId: 'cr-1' });
    expect(desiredCapacityLabels(inBlock, reservation(), { 'karpenter.sh/capacity-type': 'reserved' })).not.toHaveProperty('gpu.nvidia.com/capacity-type');
    expect(desiredCapacityLabels(inBlock, reservation(), { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK' })).not.toHaveProperty('gpu.nvidia.com/capacity-type');
    // EKS Auto Mode's `on-demand` for an instance in an open ODCR.
    expect(desiredCapacityLabels(inBlock, reservation({ reservationType: 'default', endDate: undefined }), { 'karpenter.sh/capacity-type': 'on-demand' })).toEqual({
      'gpu.nvidia.com/capacity-type': 'reserved',
      'gpu.nvidia.com/capacity-reservation-type': 'default',
    });
    expect(desiredCapacityLabels(instance({ lifecycle: 'spot' }), undefined, { 'eks.amazonaws.com/capacityType': 'SPOT' })).toEqual({});
  });

  it('has no end for a reservation without one or one EC2 no longer knows', () => {
    const inOdcr = instance({ capacityReservationId: 'cr-1' });
    expect(desiredCapacityLabels(inOdcr, reservation({ reservationType: 'default', endDate: undefined }), {})).not.toHaveProperty('gpu.nvidia.com/capacity-reservation-end');
    expect(desiredCapacityLabels(inOdcr, undefined, {})).toEqual({ 'gpu.nvidia.com/capacity-type': 'reserved' });
  });
});

describe('withCapacityLabels', () => {
  it('adds nothing to a node without GPU labels', () => {
    expect(withCapacityLabels({}, instance({ capacityReservationId: 'cr-1' }), reservation(), {})).toEqual({});
    expect(withCapacityLabels({ 'gpu.nvidia.com/model': 'H100' }, instance(), undefined, {})).toEqual({ 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/capacity-type': 'on-demand' });
  });
});
