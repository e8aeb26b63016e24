import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeGateway, PodGateway } from '../kube';
import { isKubeConflict, isKubeNotFound } from '../kube';

/** Where opted-in pods and candidate nodes come from. */
export interface ClusterReader {
  listOptedInPods(): Promise<V1Pod[]>;
  listNodes(): Promise<V1Node[]>;
}

/** 404: the object is gone; 409: it changed under us. Both are settled by the next run. */
export type PatchOutcome = 'written' | 'gone' | 'conflict';

/** Writes one annotation with a merge patch; `null` removes it. */
export interface AnnotationWriter {
  patchPodAnnotation(namespace: string, name: string, key: string, value: string | null): Promise<PatchOutcome>;
  patchNodeAnnotation(name: string, key: string, value: string | null): Promise<PatchOutcome>;
}

export interface ClusterSelection {
  /** Server-side label selector for opted-in pods. */
  readonly podLabelSelector: string;
  /** When non-empty, pods are listed only in these namespaces. */
  readonly namespaces: readonly string[];
  /** Server-side label selector for nodes whose utilization is written; empty = all nodes. */
  readonly nodeLabelSelector: string;
  /** Items per list page. */
  readonly pageSize: number;
}

// Only Running pods matter: the ReplicaSet controller deletes pending and
// unknown pods before running ones whatever their cost.
const RUNNING_PODS = 'status.phase=Running';

export function kubeClusterReader(pods: PodGateway, nodes: NodeGateway, selection: ClusterSelection): ClusterReader {
  const podOptions = { labelSelector: selection.podLabelSelector, fieldSelector: RUNNING_PODS, pageSize: selection.pageSize };
  return {
    async listOptedInPods() {
      if (selection.namespaces.length === 0) return pods.listPods(podOptions);
      const found: V1Pod[] = [];
      for (const namespace of selection.namespaces) found.push(...(await pods.listPods({ ...podOptions, namespace })));
      return found;
    },
    listNodes() {
      return nodes.listNodes({ pageSize: selection.pageSize, labelSelector: selection.nodeLabelSelector || undefined });
    },
  };
}

export function kubeAnnotationWriter(pods: PodGateway, nodes: NodeGateway): AnnotationWriter {
  return {
    patchPodAnnotation(namespace, name, key, value) {
      return tolerated(() => pods.patchPodAnnotations(namespace, name, { [key]: value }));
    },
    patchNodeAnnotation(name, key, value) {
      return tolerated(() => nodes.patchNodeAnnotations(name, { [key]: value }));
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
