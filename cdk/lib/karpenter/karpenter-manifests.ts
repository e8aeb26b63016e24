import { GPU_RESOURCE } from '../../../lambdas/scheduling/keys';
import type { KarpenterConfig, KarpenterNodePoolConfig, NodeTaint, TaintEffectName } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { KARPENTER_SERVICE_ACCOUNT } from './karpenter-release';

/** Tag the stack puts on the subnets Karpenter may launch nodes into; the EC2NodeClass selects on it. */
export const DISCOVERY_TAG = 'karpenter.sh/discovery';
/** The one EC2NodeClass every GPU NodePool uses. */
export const GPU_NODE_CLASS = 'gpu';

const TAINT_EFFECT: Readonly<Record<TaintEffectName, string>> = { NO_SCHEDULE: 'NoSchedule', PREFER_NO_SCHEDULE: 'PreferNoSchedule', NO_EXECUTE: 'NoExecute' };
const CAPACITY_TYPE = { ON_DEMAND: 'on-demand', SPOT: 'spot' } as const;

export interface NodeClassProps {
  readonly clusterName: string;
  /** The node role's name (Karpenter makes the instance profile); may be a CDK token. */
  readonly nodeRoleName: string;
  /** The EKS cluster security group: EKS creates it, so CloudFormation cannot tag it and it is selected by id. May be a token. */
  readonly securityGroupId: string;
  readonly config: KarpenterConfig;
}

/**
 * The EC2NodeClass: AL2023 by alias, for which Karpenter resolves the AMI per
 * instance type from the EKS SSM parameters, taking the `nvidia` variant (driver
 * and container toolkit included) for NVIDIA GPU types
 * (karpenter-provider-aws pkg/providers/amifamily/al2023.go).
 */
export function gpuNodeClass(props: NodeClassProps): KubernetesObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: GPU_NODE_CLASS },
    spec: {
      role: props.nodeRoleName,
      amiSelectorTerms: [{ alias: props.config.amiAlias }],
      subnetSelectorTerms: [{ tags: { [DISCOVERY_TAG]: props.clusterName } }],
      securityGroupSelectorTerms: [{ id: props.securityGroupId }],
      // IMDSv2 only, and out of reach of pods (one hop), as on the managed node groups.
      metadataOptions: { httpEndpoint: 'enabled', httpTokens: 'required', httpPutResponseHopLimit: 1 },
      blockDeviceMappings: [
        { deviceName: '/dev/xvda', ebs: { volumeSize: `${props.config.diskSizeGiB}Gi`, volumeType: 'gp3', encrypted: true, deleteOnTermination: true } },
      ],
    },
  };
}

export interface NodePoolProps {
  readonly pool: KarpenterNodePoolConfig;
  /** Labels the stack puts on every GPU node (the device plugin selects on them). */
  readonly stackLabels: Readonly<Record<string, string>>;
  /** Taints the node starts with and something else lifts (the labeler's, when enabled). */
  readonly startupTaints: readonly NodeTaint[];
}

function taint(item: NodeTaint): Record<string, string> {
  return { key: item.key, ...(item.value === '' ? {} : { value: item.value }), effect: TAINT_EFFECT[item.effect] };
}

/** One NodePool: NVIDIA GPU instances of the listed families or types, capped at `maxGpus`. */
export function gpuNodePool(props: NodePoolProps): KubernetesObject {
  const { pool } = props;
  const instances =
    pool.instanceTypes.length > 0
      ? { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [...pool.instanceTypes] }
      : { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: [...pool.instanceFamilies] };
  const startupTaints = props.startupTaints.filter((item) => !pool.taints.some((own) => own.key === item.key));
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: pool.name },
    spec: {
      template: {
        metadata: { labels: { ...pool.labels, ...props.stackLabels } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: GPU_NODE_CLASS },
          requirements: [
            // A family such as g4ad (AMD) or a listed type without NVIDIA GPUs is never launched.
            { key: 'karpenter.k8s.aws/instance-gpu-manufacturer', operator: 'In', values: ['nvidia'] },
            instances,
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: pool.capacityTypes.map((type) => CAPACITY_TYPE[type]) },
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
          ],
          ...(pool.taints.length > 0 ? { taints: pool.taints.map(taint) } : {}),
          ...(startupTaints.length > 0 ? { startupTaints: startupTaints.map(taint) } : {}),
          expireAfter: pool.expireAfter,
        },
      },
      limits: { [GPU_RESOURCE]: String(pool.maxGpus) },
      disruption: {
        consolidationPolicy: pool.consolidationPolicy,
        consolidateAfter: pool.consolidateAfter,
        budgets: pool.disruptionBudgets.map((budget) => ({
          nodes: budget.nodes,
          ...(budget.reasons === undefined ? {} : { reasons: [...budget.reasons] }),
          ...(budget.schedule === undefined ? {} : { schedule: budget.schedule, duration: budget.duration }),
        })),
      },
    },
  };
}

export interface ChartValuesProps {
  readonly clusterName: string;
  /** The interruption queue's name; may be a token. */
  readonly interruptionQueueName: string;
  /** Node labels of the system node group: the controller runs there, never on nodes it launched. */
  readonly systemNodeSelector: Readonly<Record<string, string>>;
}

/**
 * Values for the Karpenter chart. The chart's own affinity (not on a
 * Karpenter node, one replica per host) and its CriticalAddonsOnly toleration
 * are kept; the node selector adds the system group. Credentials come from
 * EKS Pod Identity, so the service account carries no role annotation.
 */
export function karpenterChartValues(props: ChartValuesProps): Record<string, unknown> {
  return {
    settings: { clusterName: props.clusterName, interruptionQueue: props.interruptionQueueName },
    serviceAccount: { create: true, name: KARPENTER_SERVICE_ACCOUNT },
    nodeSelector: { 'kubernetes.io/os': 'linux', ...props.systemNodeSelector },
    controller: {
      // What Karpenter's guide sizes for a small cluster; the system nodes (m7i.large) hold it beside the second scheduler.
      resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } },
    },
  };
}
