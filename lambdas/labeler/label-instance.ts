import type { V1Node } from '@kubernetes/client-node';
import type { InstanceSummary } from '../aws';
import type { MetadataPatch } from '../kube';
import { desiredGpuLabels, labelPatch, ownedLabelKeys } from './gpu-labels';
import type { LabelerDeps } from './labeler-deps';
import { LabelerError, NodeNotRegisteredError, step } from './labeler-errors';
import { findNodeForInstance, instanceIdFromProviderId, isTaggedForCluster } from './node-match';

export type InstanceOutcome =
  | { readonly result: 'labeled'; readonly nodeName: string; readonly patch: MetadataPatch }
  | { readonly result: 'alreadyCorrect'; readonly nodeName: string }
  | { readonly result: 'ignored'; readonly reason: 'instanceNotFound' | 'instanceTerminated' | 'notInCluster'; readonly detail: string };

/**
 * Brings one instance's node to the labels its instance type calls for.
 * Throws NodeNotRegisteredError (retriable) when the instance is ours but its
 * node is not there yet, and LabelerError for EC2/Kubernetes failures.
 */
export async function labelInstance(deps: LabelerDeps, instanceId: string): Promise<InstanceOutcome> {
  const instance = (await step('Ec2', 'DescribeInstances', () => deps.instances.byIds([instanceId]))).get(instanceId);
  if (instance === undefined) return { result: 'ignored', reason: 'instanceNotFound', detail: `EC2 does not know instance ${instanceId}` };
  if (instance.state === 'terminated' || instance.state === 'shutting-down') {
    return { result: 'ignored', reason: 'instanceTerminated', detail: `instance ${instanceId} is ${instance.state}` };
  }

  const node = await step('Kubernetes', 'finding the node', () => findNode(deps, instance));
  if (node === undefined) {
    if (isTaggedForCluster(instance.tags, deps.config.clusterName)) throw new NodeNotRegisteredError(instanceId);
    return {
      result: 'ignored',
      reason: 'notInCluster',
      detail: `instance ${instanceId} has no node and is not tagged for cluster ${deps.config.clusterName}`,
    };
  }
  const patch = await patchFor(deps, node, instance);
  const nodeName = node.metadata?.name ?? '';
  if (patch === undefined) return { result: 'alreadyCorrect', nodeName };
  await step('Kubernetes', `patching labels of node ${nodeName}`, () => deps.nodes.patchNodeLabels(nodeName, patch));
  return { result: 'labeled', nodeName, patch };
}

/** The merge patch this node needs for this instance, or undefined when its labels are right. */
export async function patchFor(deps: LabelerDeps, node: V1Node, instance: InstanceSummary): Promise<MetadataPatch | undefined> {
  const info = (await step('Ec2', 'DescribeInstanceTypes', () => deps.gpuTypes.lookup([instance.instanceType]))).get(instance.instanceType);
  if (info === undefined) {
    // Never strip labels because of a type EC2 did not describe: fail visibly instead.
    throw new LabelerError('Ec2', `DescribeInstanceTypes did not return instance type ${instance.instanceType}`);
  }
  return labelPatch(node.metadata?.labels, desiredGpuLabels(info, deps.config.labels), ownedLabelKeys(deps.config.labels));
}

/**
 * On EKS the node name is usually the private DNS name, so one GET finds it;
 * otherwise (custom names, a node without providerID yet, or a stale node
 * holding the name) scan the node list page by page.
 */
async function findNode(deps: LabelerDeps, instance: InstanceSummary): Promise<V1Node | undefined> {
  // A providerID match anywhere beats a DNS-name match (a node without providerID).
  let byDnsName: V1Node | undefined;
  if (instance.privateDnsName !== '') {
    const named = await deps.nodes.readNode(instance.privateDnsName);
    const providerID = named?.spec?.providerID;
    if (named && instanceIdFromProviderId(providerID) === instance.instanceId) return named;
    if (named && !providerID) byDnsName = named;
  }
  for await (const page of deps.nodes.listNodePages({ pageSize: deps.config.nodePageSize })) {
    const match = findNodeForInstance(page, instance);
    if (match === undefined) continue;
    if (instanceIdFromProviderId(match.spec?.providerID) === instance.instanceId) return match;
    byDnsName ??= match;
  }
  return byDnsName;
}
