// Fills the local API server with the benchmark's synthetic EKS GPU cluster
// (extender-fixtures.ts: realistic Node objects with GPU capacity in status,
// and pods bound to them with spec.nodeName, so no scheduler is needed).
import { mapWithConcurrency } from '../../lambdas/common/map-with-concurrency';
import { errorMessage } from '../../lambdas/common/error-message';
import { BENCH_NAMESPACE, boundPods, gpuNodes } from './extender-fixtures';
import type { KubeWriter } from './scale-kube-writer';

export interface PopulatedCluster {
  /** Node objects as created (names and labels are what the requests use). */
  readonly nodes: readonly Record<string, unknown>[];
  /** namespace/name of every pod created, in creation order. */
  readonly pods: readonly { readonly namespace: string; readonly name: string }[];
  readonly nodesMs: number;
  readonly podsMs: number;
}

type Metadata = Record<string, unknown> & { name: string; namespace?: string };

/**
 * What a client may send on create: the fixtures carry server-set fields
 * (uid, resourceVersion, creationTimestamp) as a listing shows them, and
 * owner references to ReplicaSets that do not exist here, which the garbage
 * collector would act on by deleting the pods.
 */
function forCreate(object: Record<string, unknown>): Record<string, unknown> {
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ownerReferences: _owners, ...metadata } = object.metadata as Metadata;
  return { ...object, metadata };
}

async function createAll(what: string, items: readonly Record<string, unknown>[], concurrency: number, create: (item: Record<string, unknown>) => Promise<void>): Promise<number> {
  const started = performance.now();
  const results = await mapWithConcurrency(items, concurrency, create);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    const first = failed[0] as { error: unknown };
    throw new Error(`${failed.length} of ${items.length} ${what} creations failed; first: ${errorMessage(first.error)}`);
  }
  return performance.now() - started;
}

/** Creates `nodeCount` GPU nodes (status included: the API server keeps a node's status on create, as a kubelet registers it), then `podCount` bound pods. */
export async function populateCluster(writer: KubeWriter, nodeCount: number, podCount: number, concurrency: number, log: (m: string) => void): Promise<PopulatedCluster> {
  const nodes = gpuNodes(nodeCount);
  const nodesMs = await createAll('node', nodes.map(forCreate), concurrency, (node) => writer.create('/api/v1/nodes', node));
  log(`[bench] scale: ${nodeCount} nodes created in ${(nodesMs / 1000).toFixed(1)} s`);
  await writer.create('/api/v1/namespaces', { metadata: { name: BENCH_NAMESPACE } });
  const pods = boundPods(nodes, podCount).map(forCreate);
  const podsMs = await createAll('pod', pods, concurrency, (pod) => {
    const { namespace } = pod.metadata as Metadata;
    return writer.create(`/api/v1/namespaces/${namespace ?? 'default'}/pods`, pod);
  });
  log(`[bench] scale: ${podCount} bound pods created in ${(podsMs / 1000).toFixed(1)} s`);
  return {
    nodes,
    pods: pods.map((p) => {
      const { namespace, name } = p.metadata as Metadata;
      return { namespace: namespace ?? 'default', name };
    }),
    nodesMs,
    podsMs,
  };
}
