import type { V1Node } from '@kubernetes/client-node';
import type { InstanceSummary } from '../aws';
import type { MetadataPatch } from '../kube';
import { desiredGpuLabels, labelPatch } from './gpu-labels';
import { ownedNodeLabelKeys, withCapacityLabels } from './capacity-labels';
import type { LabelerDeps } from './labeler-deps';
import { LabelerError, step } from './labeler-errors';
import { findNodeForInstance, instanceIdFromProviderId, isTaggedForCluster } from './node-match';
import { unlessNodeGone } from './node-gone';
import { waitForNode } from './node-registration';
import { waitForKarpenterRegistration } from './karpenter-registration';
import { removeStartupTaint } from './startup-taint';

export type InstanceOutcome =
  | {
      readonly result: 'labeled';
      readonly nodeName: string;
      readonly patch: MetadataPatch;
      /** How long the node took to appear after the invocation started looking (0 when it was there). */
      readonly waitedMs: number;
      readonly startupTaintRemoved: boolean;
    }
  | { readonly result: 'alreadyCorrect'; readonly nodeName: string; readonly waitedMs: number; readonly startupTaintRemoved: boolean }
  /** Ours, still running, but no node registered before the deadline: counted, not an error; the reconcile labels it if it joins later. */
  | { readonly result: 'notRegistered'; readonly waitedMs: number; readonly looks: number; readonly detail: string }
  | { readonly result: 'ignored'; readonly reason: 'instanceNotFound' | 'instanceTerminated' | 'notInCluster' | 'nodeGone'; readonly detail: string };

/**
 * Brings one instance's node to the labels its instance type (and capacity
 * reservation) calls for, then
 * lifts our start-up taint. When the instance is ours but its node has not
 * registered yet, waits for it (see node-registration.ts) until `deadline`
 * (a clock time). Throws LabelerError for EC2/Kubernetes failures only.
 */
export async function labelInstance(deps: LabelerDeps, instanceId: string, deadline: number): Promise<InstanceOutcome> {
  const instance = await describe(deps, instanceId);
  if (instance === undefined) return { result: 'ignored', reason: 'instanceNotFound', detail: `EC2 does not know instance ${instanceId}` };
  if (isGone(instance)) return { result: 'ignored', reason: 'instanceTerminated', detail: `instance ${instanceId} is ${instance.state}` };

  const thorough = (): Promise<V1Node | undefined> => step('Kubernetes', 'finding the node', () => findNode(deps, instance));
  const ours = isTaggedForCluster(instance.tags, deps.config.clusterName);
  const { node, waitedMs, looks } = ours
    ? await waitForNode(
        {
          thorough,
          byName: () => step('Kubernetes', 'reading the node', () => readNamedNode(deps, instance, thorough)),
          // An instance that ended while we wait (Spot interruption in its first minutes) will never register: stop waiting.
          ended: async () => {
            const latest = await describe(deps, instanceId);
            return latest === undefined || isGone(latest);
          },
        },
        { deadline, pollMaxMs: deps.config.nodeRegistration.pollMaxMs },
        deps.clock,
      )
    : { node: await thorough(), waitedMs: 0, looks: 1 };

  if (node === undefined) {
    if (!ours) {
      return { result: 'ignored', reason: 'notInCluster', detail: `instance ${instanceId} has no node and is not tagged for cluster ${deps.config.clusterName}` };
    }
    // Tell "it went away while we waited" from "it runs but never joined".
    const now = await describe(deps, instanceId);
    if (now === undefined || isGone(now)) {
      return { result: 'ignored', reason: 'instanceTerminated', detail: `instance ${instanceId} is ${now?.state ?? 'gone'}; it ended before its node registered` };
    }
    return {
      result: 'notRegistered',
      waitedMs,
      looks,
      detail:
        `instance ${instanceId} is ${now.state} but no node registered for it within ${Math.round(waitedMs / 1000)} s ` +
        `(${looks} looks); the scheduled reconcile labels it if it joins later. A node that never joins usually failed to bootstrap or lacks cluster access.`,
    };
  }

  const nodeName = node.metadata?.name ?? '';
  const patch = await patchFor(deps, node, instance);
  const current =
    patch === undefined ? node : await step('Kubernetes', `patching labels of node ${nodeName}`, () => unlessNodeGone(() => deps.nodes.patchNodeLabels(nodeName, patch)));
  if (current === undefined) return { result: 'ignored', reason: 'nodeGone', detail: `node ${nodeName} of instance ${instanceId} was deleted before its labels were written` };
  // Karpenter's registration puts the NodePool's start-up taints back: lift ours after it.
  const registered = await step('Kubernetes', `waiting for Karpenter to register node ${nodeName}`, () =>
    waitForKarpenterRegistration(() => deps.nodes.readNode(nodeName), current, deadline, deps.clock),
  );
  const startupTaintRemoved = registered !== undefined && (await step('Kubernetes', `removing the start-up taint of node ${nodeName}`, () => removeStartupTaint(deps.nodes, registered)));
  if (patch === undefined) return { result: 'alreadyCorrect', nodeName, waitedMs, startupTaintRemoved };
  return { result: 'labeled', nodeName, patch, waitedMs, startupTaintRemoved };
}

/** The merge patch this node needs for this instance, or undefined when its labels are right. */
export async function patchFor(deps: LabelerDeps, node: V1Node, instance: InstanceSummary): Promise<MetadataPatch | undefined> {
  const info = (await step('Ec2', 'DescribeInstanceTypes', () => deps.gpuTypes.lookup([instance.instanceType]))).get(instance.instanceType);
  if (info === undefined) {
    // Never strip labels because of a type EC2 did not describe: fail visibly instead.
    throw new LabelerError('Ec2', `DescribeInstanceTypes did not return instance type ${instance.instanceType}`);
  }
  const id = instance.capacityReservationId;
  const reservation = id === undefined ? undefined : (await step('Ec2', 'DescribeCapacityReservations', () => deps.reservations.byIds([id]))).get(id);
  const labels = node.metadata?.labels;
  return labelPatch(labels, withCapacityLabels(desiredGpuLabels(info, deps.config.labels), instance, reservation, labels), ownedNodeLabelKeys(deps.config.labels));
}

async function describe(deps: LabelerDeps, instanceId: string): Promise<InstanceSummary | undefined> {
  return (await step('Ec2', 'DescribeInstances', () => deps.instances.byIds([instanceId]))).get(instanceId);
}

function isGone(instance: InstanceSummary): boolean {
  return instance.state === 'terminated' || instance.state === 'shutting-down';
}

/**
 * The cheap look while waiting: the node named after the instance's private
 * DNS name if it is this instance's; one named so but without providerID yet
 * gets the thorough look, which prefers a providerID match elsewhere.
 */
async function readNamedNode(deps: LabelerDeps, instance: InstanceSummary, thorough: () => Promise<V1Node | undefined>): Promise<V1Node | undefined> {
  if (instance.privateDnsName === '') return undefined;
  const named = await deps.nodes.readNode(instance.privateDnsName);
  if (named === undefined) return undefined;
  const providerID = named.spec?.providerID;
  if (instanceIdFromProviderId(providerID) === instance.instanceId) return named;
  return providerID ? undefined : thorough();
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
