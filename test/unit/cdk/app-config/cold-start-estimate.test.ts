import { describe, expect, it } from 'vitest';
import { coldListSeconds, memoryForColdList } from '../../../../cdk/app-config/cold-start-estimate';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';

describe('a cold extender instance\'s first listing', () => {
  it('is the measured run at its own size, and scales with the objects and the CPU up to one vCPU', () => {
    // docs/extender.md: 8,773 ms at 512 MB, 2,480 ms at full CPU, 5,000 nodes / 50,000 pods.
    expect(coldListSeconds(5_000, 50_000, 512)).toBeCloseTo(8.773, 3);
    expect(coldListSeconds(5_000, 50_000, 1_769)).toBeGreaterThan(2.4);
    expect(coldListSeconds(5_000, 50_000, 1_769)).toBeLessThan(2.7);
    expect(coldListSeconds(5_000, 50_000, 10_240)).toBe(coldListSeconds(5_000, 50_000, 1_769));
    expect(coldListSeconds(10_000, 100_000, 512)).toBeCloseTo(2 * 8.773, 3);
  });

  it('names the least memory that fits the timeout with the margin, none when one vCPU is too slow', () => {
    const fits = memoryForColdList(5_000, 50_000, 10) ?? 0;
    expect(coldListSeconds(5_000, 50_000, fits) * 1.5).toBeLessThan(10);
    expect(coldListSeconds(5_000, 50_000, fits - 64) * 1.5).toBeGreaterThanOrEqual(10);
    expect(memoryForColdList(30_000, 300_000, 10)).toBeUndefined();
  });
});

describe('extender.expectedNodes / expectedPods', () => {
  it('refuses a memory whose cold listing cannot end within the Lambda timeout, naming the memory that fits', () => {
    expect(() => parseAppConfig({ extender: { expectedNodes: 5_000, expectedPods: 50_000, memorySizeMiB: 512 } })).toThrow(
      /extender\.memorySizeMiB: is too small for 5000 nodes and 50000 pods: .*about 8\.8 s at 512 MiB.*set extender\.memorySizeMiB to 704 or more/,
    );
    expect(parseAppConfig({ extender: { expectedNodes: 5_000, expectedPods: 50_000, memorySizeMiB: 704 } }).extender.memorySizeMiB).toBe(704);
  });

  it('asks for provisioned concurrency (or a longer timeout) when even one vCPU is too slow, and accepts it', () => {
    expect(() => parseAppConfig({ extender: { expectedNodes: 30_000, expectedPods: 300_000 } })).toThrow(/even at 1769 MiB .*provisionedConcurrency/);
    expect(parseAppConfig({ extender: { expectedNodes: 30_000, expectedPods: 300_000, provisionedConcurrency: 1 } }).extender.provisionedConcurrency).toBe(1);
    expect(parseAppConfig({ extender: { expectedNodes: 30_000, expectedPods: 300_000, timeoutSeconds: 30 } }).extender.timeoutSeconds).toBe(30);
  });

  it('needs both, and checks nothing without them (the defaults fit 5,000 nodes / 50,000 pods)', () => {
    expect(() => parseAppConfig({ extender: { expectedNodes: 100 } })).toThrow(/extender\.expectedPods: is required/);
    expect(parseAppConfig({ extender: { memorySizeMiB: 128 } }).extender.memorySizeMiB).toBe(128);
    expect(parseAppConfig({ extender: { expectedNodes: 5_000, expectedPods: 50_000 } }).extender.expectedNodes).toBe(5_000);
  });
});
