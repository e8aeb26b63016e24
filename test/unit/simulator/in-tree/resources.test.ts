import { describe, expect, it } from 'vitest';
import { podRequests, resourceListOf } from '../../../../simulator/in-tree/resources';

describe('podRequests (what NodeResourcesFit counts)', () => {
  it('sums containers; a limit without a request requests the limit, as the API server defaults it', () => {
    const spec = {
      containers: [
        { resources: { requests: { cpu: '500m', memory: '1Gi' } } },
        { resources: { limits: { 'nvidia.com/gpu': '2', cpu: '2' }, requests: { cpu: '1' } } },
      ],
    };
    expect(Object.fromEntries(podRequests(spec))).toEqual({ cpu: 1500, memory: 2 ** 30, 'nvidia.com/gpu': 2 });
  });

  it('takes the larger of the running pod and an init container with the sidecars started before it, plus the overhead', () => {
    const spec = {
      initContainers: [
        { restartPolicy: 'Always', resources: { requests: { cpu: '1' } } },
        { resources: { requests: { cpu: '4' } } },
      ],
      containers: [{ resources: { requests: { cpu: '2' } } }],
      overhead: { cpu: '100m' },
    };
    // Running: 2 + sidecar 1 = 3; the init container runs beside the sidecar: 4 + 1 = 5; then the overhead.
    expect(podRequests(spec).get('cpu')).toBe(5100);
  });

  it('reads allocatable by resource kind and leaves out what does not parse', () => {
    expect(Object.fromEntries(resourceListOf({ cpu: '96', memory: '1152Gi', pods: '110', 'hugepages-2Mi': '1Gi', 'nvidia.com/gpu': 8, bad: 'lots' }))).toEqual({
      cpu: 96_000,
      memory: 1152 * 2 ** 30,
      pods: 110,
      'hugepages-2Mi': 2 ** 30,
      'nvidia.com/gpu': 8,
    });
  });
});
