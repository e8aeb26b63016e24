import { networkInterfaces } from 'node:os';

/**
 * An IPv4 address of this machine that is not loopback or link-local: the API
 * server refuses to proxy to those, so a local process standing in for a pod
 * (e.g. kube-scheduler serving /metrics) listens here and the pod's status
 * carries it as its podIP.
 */
export function podLikeHostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
    }
  }
  throw new Error('this machine has no non-loopback IPv4 address for a pod-like listener (the API server will not proxy to loopback)');
}
