import { describe, expect, it } from 'vitest';
import { createSimulatorProfile, parsePodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from './kube-objects';

const withGroup = (size: string, selector: string | null = 'job=j') =>
  gpuPod('w', { gpus: 1, annotations: { 'gpu.nvidia.com/group-size': size, ...(selector === null ? {} : { 'gpu.nvidia.com/peer-selector': selector }) } });

describe('gpu.nvidia.com/group-size', () => {
  it('reads a whole number of pods', () => {
    expect(parsePodRequirements(withGroup('4')).groupSize).toBe(4);
    expect(parsePodRequirements(withGroup(' 32 ')).groupSize).toBe(32);
    expect(parsePodRequirements(withGroup('100000')).groupSize).toBe(100_000);
    expect(parsePodRequirements(gpuPod('solo', { gpus: 1 })).groupSize).toBeUndefined();
  });

  it.each([
    ['0', 'must be at least 1'],
    ['-1', 'is not a whole number of pods'],
    ['1000000000', 'is more than 100000 pods'],
    ['four', 'is not a whole number of pods'],
    ['2.5', 'is not a whole number of pods'],
    ['', 'is not a whole number of pods'],
  ])('rejects %j everywhere with a clear InvalidPodAnnotation reason', (size, why) => {
    const requirements = parsePodRequirements(withGroup(size));
    expect(requirements.invalid?.detail).toBe(`annotation gpu.nvidia.com/group-size=${JSON.stringify(size)} ${why}`);
    const profile = createSimulatorProfile();
    const outcome = profile.filter(profile.startCycle(snapshotFromKubernetes([gpuNode('n')]), requirements), snapshotFromKubernetes([gpuNode('n')]).nodes);
    expect(outcome.rejected.map((r) => [r.status.code, r.status.message])).toEqual([
      ['InvalidPodAnnotation', `Invalid pod: annotation gpu.nvidia.com/group-size=${JSON.stringify(size)} ${why}`],
    ]);
  });

  it('needs a peer selector to find the other pods of the job', () => {
    expect(parsePodRequirements(withGroup('4', null)).invalid?.detail).toBe(
      'annotation gpu.nvidia.com/group-size="4" needs gpu.nvidia.com/peer-selector to find the job\'s other pods',
    );
  });

  it('reports a bad selector first, not the group size that depends on it', () => {
    expect(parsePodRequirements(withGroup('4', '!!')).invalid?.field).toBe('gpu.nvidia.com/peer-selector');
  });
});
