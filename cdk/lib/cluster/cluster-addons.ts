import { Validations } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { AddonsConfig } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { ACCELERATOR_LABEL } from './new-gpu-cluster';

export interface ClusterAddonsProps {
  readonly target: ClusterTarget;
  readonly config: AddonsConfig;
  /** Something besides the CloudWatch agent gets credentials from EKS Pod Identity (Karpenter), so the agent is needed either way. */
  readonly podIdentityNeeded: boolean;
}

/** Node labels that mark an NVIDIA GPU node, whoever set them; the device plugin runs only there. */
export const GPU_NODE_SELECTOR_TERMS = [
  { matchExpressions: [{ key: ACCELERATOR_LABEL, operator: 'In', values: ['nvidia'] }] }, // our node groups
  { matchExpressions: [{ key: 'gpu.nvidia.com/model', operator: 'Exists' }] }, // our node labeler
  { matchExpressions: [{ key: 'nvidia.com/gpu.present', operator: 'In', values: ['true'] }] }, // GPU Feature Discovery
  { matchExpressions: [{ key: 'karpenter.k8s.aws/instance-gpu-manufacturer', operator: 'In', values: ['nvidia'] }] }, // Karpenter
];

/**
 * The NVIDIA device plugin (advertises `nvidia.com/gpu`; the AL2023 NVIDIA
 * AMI ships the driver but not the plugin) and the
 * amazon-cloudwatch-observability add-on (publishes node_gpu_utilization,
 * which the reconciler and the dashboard read). Each is switchable.
 */
export class ClusterAddons extends Construct {
  /** The eks-pod-identity-agent add-on, when this stack installs it. */
  readonly podIdentityAgent: eks.CfnAddon | undefined;

  constructor(scope: Construct, id: string, props: ClusterAddonsProps) {
    super(scope, id);
    const { target, config } = props;
    const podIdentityAgent =
      target.installPodIdentityAgent && (props.podIdentityNeeded || config.cloudWatchObservability.enabled)
        ? new eks.CfnAddon(this, 'PodIdentityAgent', { clusterName: target.clusterName, addonName: 'eks-pod-identity-agent', resolveConflicts: 'OVERWRITE' })
        : undefined;
    if (podIdentityAgent) {
      podIdentityAgent.node.addDependency(...target.clusterCreated);
      // Add-ons that run pods only turn ACTIVE once nodes exist to run them.
      for (const ready of target.computeReady) podIdentityAgent.node.addDependency(ready);
    }
    this.podIdentityAgent = podIdentityAgent;

    if (config.nvidiaDevicePlugin.enabled) {
      const chart = target.cluster.addHelmChart('NvidiaDevicePlugin', {
        chart: 'nvidia-device-plugin',
        repository: 'https://nvidia.github.io/k8s-device-plugin',
        version: config.nvidiaDevicePlugin.chartVersion,
        release: 'nvidia-device-plugin',
        namespace: 'kube-system',
        values: {
          // The chart's default affinity needs Node Feature Discovery labels,
          // which EKS nodes do not have.
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: GPU_NODE_SELECTOR_TERMS } } },
          // GPU nodes are tainted (by default nvidia.com/gpu:NoSchedule) so
          // ordinary pods stay off; the plugin must run there whatever the taint.
          tolerations: [{ operator: 'Exists' }],
        },
      });
      for (const ready of target.computeReady) chart.node.addDependency(ready);
    }

    if (config.cloudWatchObservability.enabled) {
      // The agent's credentials come from EKS Pod Identity, not the node role,
      // so only the agent's service account gets CloudWatch write access.
      const agentRole = new iam.Role(this, 'CloudWatchAgentRole', {
        assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com').withSessionTags(),
        managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('CloudWatchAgentServerPolicy')],
      });
      Validations.of(agentRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/CloudWatchAgentServerPolicy]',
        reason: 'CloudWatchAgentServerPolicy is the policy AWS documents for the amazon-cloudwatch-observability agent; it is attached only to the agent service account role via Pod Identity.',
      });
      const observability = new eks.CfnAddon(this, 'CloudWatchObservability', {
        clusterName: target.clusterName,
        addonName: 'amazon-cloudwatch-observability',
        addonVersion: config.cloudWatchObservability.addonVersion,
        resolveConflicts: 'OVERWRITE',
        podIdentityAssociations: [{ serviceAccount: 'cloudwatch-agent', roleArn: agentRole.roleArn }],
      });
      observability.node.addDependency(...target.clusterCreated);
      if (podIdentityAgent) observability.node.addDependency(podIdentityAgent);
      // Add-ons that run pods only turn ACTIVE once nodes exist to run them.
      for (const ready of target.computeReady) observability.node.addDependency(ready);
    }
  }
}
