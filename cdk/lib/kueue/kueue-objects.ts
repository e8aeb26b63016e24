// Kueue's objects for GPU jobs scheduled by gpu-scheduler: a Topology of EKS's
// network layers, one ResourceFlavor per GPU instance type, ClusterQueues with
// GPU quota per flavor (and a cohort to lend and borrow in), LocalQueues.
// Pure: the stack applies them and the local harness creates them against
// Kueue's real CRDs (test/e2e/kueue-*.test.ts), so both use the same objects.
import { GPU_RESOURCE, NETWORK_LAYER_LABELS } from '../../../lambdas/scheduling/keys';
import type { KubernetesObject } from '../common/kubernetes-object';

export const KUEUE_API_VERSION = 'kueue.x-k8s.io/v1beta2';
/** The label a Job (or any workload) names its LocalQueue with. */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
/**
 * The label every node has whoever made it (the kubelet sets it from the
 * cloud provider), and which fixes the GPU model: flavors key on it because
 * the GPU-model labels differ by source (our labeler's `gpu.nvidia.com/model`,
 * Karpenter's `karpenter.k8s.aws/instance-gpu-name`, Auto Mode's
 * `eks.amazonaws.com/instance-gpu-name`, GPU feature discovery's
 * `nvidia.com/gpu.product`) and a node may have only some of them.
 */
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/**
 * ClusterQueues cover cpu and memory too (Kueue admits a workload only when
 * its queue covers every resource it requests) with a quota no job reaches:
 * GPUs are what the queues share.
 */
const UNMETERED = { cpu: '1000000', memory: '1000000Gi' } as const;

/** The network layers Kueue's Topology Aware Scheduling places in: EKS's layers 1-3, broadest first. */
export const NETWORK_TOPOLOGY_LEVELS: readonly string[] = NETWORK_LAYER_LABELS.slice(0, 3);

/**
 * A Topology of the network layers. `withHostname` adds the node as the
 * lowest level: Kueue then picks each pod's node itself (the extender can
 * only agree or refuse); without it Kueue picks the bottom network block and
 * the extender's scoring picks the nodes inside it.
 */
export function kueueTopology(name: string, withHostname: boolean): KubernetesObject {
  const levels = [...NETWORK_TOPOLOGY_LEVELS, ...(withHostname ? [HOSTNAME_LABEL] : [])];
  return { apiVersion: KUEUE_API_VERSION, kind: 'Topology', metadata: { name }, spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) } };
}

/** A flavor name for an instance type: `p5.48xlarge` → `p5-48xlarge` (object names may not start or end oddly; dots read as domains). */
export function flavorName(instanceType: string): string {
  if (!/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/.test(instanceType)) throw new Error(`"${instanceType}" is not an EC2 instance type name (e.g. p5.48xlarge)`);
  return instanceType.replaceAll('.', '-');
}

export interface FlavorToleration {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface FlavorProps {
  readonly instanceType: string;
  /** Default flavorName(instanceType); another name gives the same nodes a second flavor (e.g. with another topology). */
  readonly name?: string;
  /** A Topology's name: Kueue then places this flavor's workloads by topology (TAS); unset for quota alone. */
  readonly topologyName?: string;
  /**
   * The taints of these nodes (e.g. `nvidia.com/gpu=true:NoSchedule`). Kueue
   * adds them to the admitted pods as tolerations, and its Topology Aware
   * Scheduling counts a tainted node only for pods that tolerate it: it reads
   * the Job's pod template, where admission policies that add tolerations to
   * pods (ours included) have not acted yet.
   */
  readonly tolerations?: readonly FlavorToleration[];
}

/** A ResourceFlavor for the nodes of one GPU instance type. */
export function kueueResourceFlavor(props: FlavorProps): KubernetesObject {
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: 'ResourceFlavor',
    metadata: { name: props.name ?? flavorName(props.instanceType) },
    spec: {
      nodeLabels: { [INSTANCE_TYPE_LABEL]: props.instanceType },
      ...(props.topologyName && { topologyName: props.topologyName }),
      ...(props.tolerations?.length && {
        tolerations: props.tolerations.map((t) => ({ key: t.key, operator: t.value === undefined ? 'Exists' : 'Equal', ...(t.value !== undefined && { value: t.value }), effect: t.effect })),
      }),
    },
  };
}

export interface GpuQuota {
  readonly instanceType: string;
  /** The flavor's name when it is not flavorName(instanceType). */
  readonly flavor?: string;
  /** GPUs of this instance type the queue may use of its own. */
  readonly gpus: number;
  /** Most GPUs it may borrow beyond `gpus` from its cohort; unset: as many as the cohort has unused. */
  readonly borrowingLimit?: number;
  /** Most of its own `gpus` it lends to the cohort; unset: all it does not use. */
  readonly lendingLimit?: number;
}

export interface ClusterQueueProps {
  readonly name: string;
  /** Queues of one cohort lend each other their unused quota. */
  readonly cohort?: string;
  /** In the order Kueue tries them for a workload. */
  readonly quotas: readonly GpuQuota[];
  /** Namespaces whose LocalQueues may point here, by label; unset: every namespace. */
  readonly namespaceSelector?: Readonly<Record<string, string>>;
}

const wholeCount = (value: number, what: string): number => {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what} must be a whole number of GPUs (0 or more), got ${value}`);
  return value;
};

/** A ClusterQueue whose quota is GPUs per instance type; cpu and memory are covered but not limited. */
export function kueueClusterQueue(props: ClusterQueueProps): KubernetesObject {
  if (props.quotas.length === 0) throw new Error(`ClusterQueue ${props.name} has no GPU quota`);
  const seen = new Set<string>();
  const flavors = props.quotas.map((quota) => {
    const name = quota.flavor ?? flavorName(quota.instanceType);
    if (seen.has(name)) throw new Error(`ClusterQueue ${props.name} lists ${quota.instanceType} twice`);
    seen.add(name);
    const gpu = {
      name: GPU_RESOURCE,
      nominalQuota: wholeCount(quota.gpus, `${props.name}: ${quota.instanceType} gpus`),
      ...(quota.borrowingLimit !== undefined && { borrowingLimit: wholeCount(quota.borrowingLimit, `${props.name}: ${quota.instanceType} borrowingLimit`) }),
      ...(quota.lendingLimit !== undefined && { lendingLimit: wholeCount(quota.lendingLimit, `${props.name}: ${quota.instanceType} lendingLimit`) }),
    };
    return { name, resources: [{ name: 'cpu', nominalQuota: UNMETERED.cpu }, { name: 'memory', nominalQuota: UNMETERED.memory }, gpu] };
  });
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: 'ClusterQueue',
    metadata: { name: props.name },
    spec: {
      ...(props.cohort && { cohortName: props.cohort }),
      namespaceSelector: props.namespaceSelector ? { matchLabels: { ...props.namespaceSelector } } : {},
      resourceGroups: [{ coveredResources: ['cpu', 'memory', GPU_RESOURCE], flavors }],
    },
  };
}

/** A namespace's queue, feeding a ClusterQueue. */
export function kueueLocalQueue(name: string, namespace: string, clusterQueue: string): KubernetesObject {
  return { apiVersion: KUEUE_API_VERSION, kind: 'LocalQueue', metadata: { name, namespace }, spec: { clusterQueue } };
}
