import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { KARPENTER_DISRUPTION_COST_ANNOTATION } from './karpenter-disruption-cost';

export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** The parts of a Pod the reconciler decides on. */
export interface PodView {
  readonly namespace: string;
  readonly name: string;
  /** The node it is bound to; undefined while pending. */
  readonly nodeName: string | undefined;
  readonly terminating: boolean;
  /** When the Ready condition last became True; `undefined` when the pod is not Ready. */
  readonly readySince: Date | undefined;
  readonly currentCost: string | undefined;
  /** Its karpenter.sh/disruption-cost, which the reconciler keeps in step with currentCost when asked to. */
  readonly currentKarpenterCost: string | undefined;
  /** The ownerReference marked `controller: true`; `undefined` for a pod no controller manages. */
  readonly controller: PodController | undefined;
}

export interface PodController {
  readonly apiVersion: string;
  readonly kind: string;
}

export function podView(pod: V1Pod): PodView | undefined {
  const namespace = pod.metadata?.namespace;
  const name = pod.metadata?.name;
  if (!namespace || !name) return undefined;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    namespace,
    name,
    nodeName: pod.spec?.nodeName ?? undefined,
    terminating: pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
    readySince: ready?.status === 'True' ? validDate(ready.lastTransitionTime ?? pod.status?.startTime) : undefined,
    currentCost: pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION],
    currentKarpenterCost: pod.metadata?.annotations?.[KARPENTER_DISRUPTION_COST_ANNOTATION],
    controller: controllerOf(pod),
  };
}

function controllerOf(pod: V1Pod): PodController | undefined {
  const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  return owner ? { apiVersion: owner.apiVersion, kind: owner.kind } : undefined;
}

export function secondsSince(since: Date | undefined, now: Date): number | undefined {
  return since === undefined ? undefined : (now.getTime() - since.getTime()) / 1000;
}

/** The parts of a Node the utilization writer needs. */
export interface NodeView {
  readonly name: string;
  /** EC2 instance id from `providerID: aws:///<az>/<instance-id>`; Container Insights keys on it. */
  readonly instanceId: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
}

const AWS_PROVIDER_ID = /^aws:\/\/\/[^/]+\/(i-[0-9a-f]+)$/;

export function nodeView(node: V1Node): NodeView | undefined {
  const name = node.metadata?.name;
  if (!name) return undefined;
  const match = AWS_PROVIDER_ID.exec(node.spec?.providerID ?? '');
  return { name, instanceId: match?.[1], annotations: node.metadata?.annotations ?? {} };
}

function validDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
