import type { CoreV1Event, V1Node, V1Pod, ResourceV1ResourceClaim, V1ResourceSlice } from '@kubernetes/client-node';
import type { NodeGateway, PodGateway, DraGateway } from '../kube';
import { isKubeConflict, isKubeNotFound } from '../kube';
import { NVIDIA_DRA_SLICE_FIELD_SELECTOR } from '../scheduling/dra-gpus';
import type { LabelSelector } from '../scheduling/label-selector';
import type { PodMetadataPatch } from './do-not-disrupt';
import { OWNED_DO_NOT_DISRUPT_SELECTOR } from './do-not-disrupt';
import { selectorMatches } from '../scheduling/label-selector';
import { NODE_ANNOTATION, NODE_LABEL } from '../scheduling/keys';

/** One pod listing, read two ways. */
export interface ClusterPods {
  /** Running pods matching the opt-in selector: the deletion-cost candidates. */
  readonly optedIn: V1Pod[];
  /** Every pod not yet finished (pending, bound, running): what the outcome metrics count. */
  readonly all: V1Pod[];
}

/** Where pods and candidate nodes come from. */
export interface ClusterReader {
  listPods(): Promise<ClusterPods>;
  listNodes(): Promise<V1Node[]>;
  /**
   * NVIDIA's ResourceSlices (resource.k8s.io/v1), which say how many GPUs a
   * node served by its DRA driver has; empty on a cluster that does not
   * serve the group.
   */
  listGpuResourceSlices(): Promise<V1ResourceSlice[]>;
  /**
   * Every ResourceClaim (no selector picks the GPU ones): the GPUs pods
   * hold through claims, and what pending pods' claims ask. Empty on a
   * cluster that does not serve resource.k8s.io/v1.
   */
  listResourceClaims(): Promise<ResourceV1ResourceClaim[]>;
  /**
   * Finished (Succeeded, Failed) pods still carrying the do-not-disrupt the
   * reconciler wrote, found by its owner label: what is left to clean up.
   */
  listFinishedOwnedPods(): Promise<V1Pod[]>;
  /** Karpenter's `Nominated` events about pods: which pending pods it is launching (or has found) a node for. */
  listNominations(): Promise<CoreV1Event[]>;
  /** Warning events about Nodes: the node monitoring agent's GPU warnings among them (gpu-health-labels.ts). */
  listNodeWarnings(): Promise<CoreV1Event[]>;
}

/** 404: the object is gone; 409: it changed under us. Both are settled by the next run. */
export type PatchOutcome = 'written' | 'gone' | 'conflict';

/** Writes annotations with merge patches; `null` removes one. */
export interface AnnotationWriter {
  /** One merge patch of the pod's annotations; `null` removes one. */
  patchPodAnnotations(namespace: string, name: string, annotations: Readonly<Record<string, string | null>>): Promise<PatchOutcome>;
  patchNodeAnnotation(name: string, key: string, value: string | null): Promise<PatchOutcome>;
  /** One merge patch of the pod's annotations and labels together. */
  patchPodMetadata(namespace: string, name: string, patch: PodMetadataPatch): Promise<PatchOutcome>;
  /** One merge patch of the node's gpu.nvidia.com/health label and its reasons annotation (null removes both). */
  patchNodeHealth(name: string, label: string | null, reasons: string | null): Promise<PatchOutcome>;
}

export interface ClusterSelection {
  /** Label selector of opted-in pods, as configured. */
  readonly podLabelSelector: string;
  /** The same, parsed: matched client-side, since the one listing also serves the outcome metrics. */
  readonly podSelector: LabelSelector;
  /** When non-empty, pods are listed only in these namespaces. */
  readonly namespaces: readonly string[];
  /** Server-side label selector for nodes whose utilization is written; empty = all nodes. */
  readonly nodeLabelSelector: string;
  /** Items per list page. */
  readonly pageSize: number;
}

// Finished pods hold no GPU and wait for nothing. Pending ones are listed for
// the outcome metrics (GPU pods waiting for the GPU scheduler); only Running
// ones are deletion-cost candidates: the ReplicaSet controller deletes
// pending and unknown pods before running ones whatever their cost.
const UNFINISHED_PODS = 'status.phase!=Succeeded,status.phase!=Failed';
const NOMINATED_POD_EVENTS = 'involvedObject.kind=Pod,reason=Nominated';
const NODE_WARNINGS = 'involvedObject.kind=Node,type=Warning';
// Field selectors cannot say "Succeeded or Failed"; "none of the others" can.
const FINISHED_PODS = 'status.phase!=Pending,status.phase!=Running,status.phase!=Unknown';

export function kubeClusterReader(pods: PodGateway, nodes: NodeGateway, dra: DraGateway, selection: ClusterSelection): ClusterReader {
  const podOptions = { fieldSelector: UNFINISHED_PODS, pageSize: selection.pageSize };
  return {
    async listPods() {
      const all: V1Pod[] = [];
      if (selection.namespaces.length === 0) all.push(...(await pods.listPods(podOptions)));
      for (const namespace of selection.namespaces) all.push(...(await pods.listPods({ ...podOptions, namespace })));
      const optedIn = all.filter((pod) => pod.status?.phase === 'Running' && selectorMatches(selection.podSelector, pod.metadata?.labels));
      return { optedIn, all };
    },
    listNodes() {
      return nodes.listNodes({ pageSize: selection.pageSize, labelSelector: selection.nodeLabelSelector || undefined });
    },
    async listGpuResourceSlices() {
      // All of NVIDIA's slices, not only those of NODE_SELECTOR's nodes: a slice selects its node by a field, not by labels; slices of unlisted nodes are never looked up.
      const listed = await dra.listResourceSlices({ pageSize: selection.pageSize, fieldSelector: NVIDIA_DRA_SLICE_FIELD_SELECTOR });
      return listed ?? [];
    },
    async listResourceClaims() {
      return (await dra.listResourceClaims({ pageSize: selection.pageSize })) ?? [];
    },
    async listNominations() {
      const options = { fieldSelector: NOMINATED_POD_EVENTS, pageSize: selection.pageSize };
      if (selection.namespaces.length === 0) return pods.listPodEvents(options);
      const events: CoreV1Event[] = [];
      for (const namespace of selection.namespaces) events.push(...(await pods.listPodEvents({ ...options, namespace })));
      return events;
    },
    listNodeWarnings() {
      return nodes.listNodeEvents({ fieldSelector: NODE_WARNINGS, pageSize: selection.pageSize });
    },
    async listFinishedOwnedPods() {
      const options = { fieldSelector: FINISHED_PODS, labelSelector: OWNED_DO_NOT_DISRUPT_SELECTOR, pageSize: selection.pageSize };
      if (selection.namespaces.length === 0) return pods.listPods(options);
      const finished: V1Pod[] = [];
      for (const namespace of selection.namespaces) finished.push(...(await pods.listPods({ ...options, namespace })));
      return finished;
    },
  };
}

export function kubeAnnotationWriter(pods: PodGateway, nodes: NodeGateway): AnnotationWriter {
  return {
    patchPodAnnotations(namespace, name, annotations) {
      return tolerated(() => pods.patchPodAnnotations(namespace, name, annotations));
    },
    patchNodeAnnotation(name, key, value) {
      return tolerated(() => nodes.patchNodeAnnotations(name, { [key]: value }));
    },
    patchPodMetadata(namespace, name, patch) {
      return tolerated(() => pods.patchPodMetadata(namespace, name, patch));
    },
    patchNodeHealth(name, label, reasons) {
      return tolerated(() => nodes.patchNodeMetadata(name, { labels: { [NODE_LABEL.gpuHealth]: label }, annotations: { [NODE_ANNOTATION.gpuHealthReasons]: reasons } }));
    },
  };
}

async function tolerated(patch: () => Promise<unknown>): Promise<PatchOutcome> {
  try {
    await patch();
    return 'written';
  } catch (error) {
    if (isKubeNotFound(error)) return 'gone';
    if (isKubeConflict(error)) return 'conflict';
    throw error;
  }
}
