import { describe, expect, it } from 'vitest';
import { closestKey, editDistance } from '../../../../cdk/app-config/closest-key';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['weight', 'wieght', 2],
    ['minsize', 'minsize', 0],
  ])('%s → %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('closestKey', () => {
  const keys = ['vpcId', 'availabilityZones', 'privateSubnetIds', 'clusterSecurityGroupId'];

  it('matches case-insensitively first', () => {
    expect(closestKey('VPCID', keys)).toBe('vpcId');
  });

  it('takes the fewest edits when close enough', () => {
    expect(closestKey('availabilityZone', keys)).toBe('availabilityZones');
    expect(closestKey('privatSubnetIDs', keys)).toBe('privateSubnetIds');
  });

  it('suggests nothing for a word far from all keys, or when there are none', () => {
    expect(closestKey('region', keys)).toBeUndefined();
    expect(closestKey('vpc', [])).toBeUndefined();
  });
});
