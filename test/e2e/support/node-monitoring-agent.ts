// The EKS node monitoring agent's records, as the e2e files write them in its place.
import type { CoreV1Event } from '@kubernetes/client-node';

/** A warning-level GPU fault as the agent records it: a Warning event about the Node, in `default`. */
export function agentWarning(node: string, message: string): CoreV1Event {
  const now = new Date();
  return {
    metadata: { name: `${node}.${now.getTime().toString(16)}`, namespace: 'default' },
    involvedObject: { kind: 'Node', name: node, apiVersion: 'v1' },
    type: 'Warning',
    reason: 'AcceleratedHardwareReady',
    message,
    source: { component: 'eks-node-monitoring-agent', host: node },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
