import type { V1Pod } from '@kubernetes/client-node';
import { GPU_SCHEDULER_NAME } from '../../local/scheduler-config';

/**
 * What the extender-fault tests (throttling, cold start) schedule: one GPU of
 * model A10G beside a g5 (A10G) and a g4dn (T4) node. Only the extender knows
 * the T4 node does not fit (kube-scheduler counts GPUs, not models), so a pod
 * that lands without it lands wrong.
 */
export const A10G_NODE_TYPE = 'g5.12xlarge';
export const T4_NODE_TYPE = 'g4dn.12xlarge';

export function a10gPod(name: string): V1Pod {
  return {
    metadata: { name, annotations: { 'gpu.nvidia.com/model': 'A10G' } },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}
