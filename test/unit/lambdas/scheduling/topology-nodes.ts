import type { KubeNode } from '../../../../lambdas/scheduling';
import { NETWORK_LAYER_LABELS } from '../../../../lambdas/scheduling';
import type { GpuNodeOptions } from './kube-objects';
import { gpuNode } from './kube-objects';

/** A GPU node with EKS network-topology labels: `layers` top first (3 or 4 values). */
export function topologyNode(name: string, layers: readonly string[], options: GpuNodeOptions = {}): KubeNode {
  const labels: Record<string, string> = {};
  layers.forEach((value, i) => {
    const label = NETWORK_LAYER_LABELS[i];
    if (label !== undefined) labels[label] = value;
  });
  return gpuNode(name, { zone: 'z1', ...options, labels: { ...labels, ...options.labels } });
}
