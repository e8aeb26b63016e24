// The Karpenter objects the local Karpenter runs with, made through the API:
// a KWOKNodeClass marked Ready (the kwok provider has no NodeClass
// controller), a NodePool, and their removal with everything launched for
// them (finalizers removed: without kubelets nothing finishes a drain).
import { TerminateInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';
import { instanceIdFromProviderId } from '../../lambdas/labeler/node-match';
import { NODEPOOL_LABEL } from './karpenter-node-boot';

export const KARPENTER = { group: 'karpenter.sh', version: 'v1' } as const;
export const KWOK = { group: 'karpenter.kwok.sh', version: 'v1alpha1' } as const;
const NODE_CLASSES = { ...KWOK, plural: 'kwoknodeclasses' } as const;

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The parts of a karpenter.sh/v1 NodeClaim the tests read. */
export interface NodeClaim {
  metadata: { name: string; labels?: Record<string, string>; creationTimestamp?: string };
  spec: { requirements?: NodeSelectorRequirement[]; resources?: { requests?: Record<string, string> } };
  status?: { nodeName?: string; providerID?: string; capacity?: Record<string, string>; allocatable?: Record<string, string>; conditions?: Condition[]; lastPodEventTime?: string };
}

export interface NodePoolOptions {
  /** Default `gpu`. */
  name?: string;
  /** Added to the pool's own: on-demand, linux. */
  requirements?: NodeSelectorRequirement[];
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  /** Taints a launched node starts with until something lifts them (the stack's `gpuNodeStartupTaint`, which our labeler lifts). */
  startupTaints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  /** e.g. `{ 'nvidia.com/gpu': '16' }`. */
  limits?: Record<string, string>;
  /** Default none (`WhenEmpty` after `Never`): a test that asserts what was launched must not see it replaced. */
  disruption?: NodePoolDisruption;
}

/** A NodePool's `spec.disruption`: which nodes consolidation may take, and after how long. */
export interface NodePoolDisruption {
  consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  /** A duration (`0s`, `30s`) or `Never`. */
  consolidateAfter: string;
  /** How many nodes may be disrupted at once; Karpenter's default `[{ nodes: '10%' }]` when left out. */
  budgets?: { nodes: string }[];
}

/** Karpenter's default budget (the NodePool CRD's default). */
export const DEFAULT_DISRUPTION_BUDGETS: readonly { nodes: string }[] = [{ nodes: '10%' }];

export function nodePoolBody(name: string, nodeClassName: string, options: NodePoolOptions): object {
  return {
    apiVersion: `${KARPENTER.group}/${KARPENTER.version}`,
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        metadata: { labels: options.labels ?? {} },
        spec: {
          nodeClassRef: { group: KWOK.group, kind: 'KWOKNodeClass', name: nodeClassName },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            ...(options.requirements ?? []),
          ],
          taints: options.taints ?? [],
          ...(options.startupTaints ? { startupTaints: options.startupTaints } : {}),
          expireAfter: 'Never',
        },
      },
      // By default a test asserts what was launched; consolidation must not replace it meanwhile.
      disruption: options.disruption ?? { consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' },
      ...(options.limits ? { limits: options.limits } : {}),
    },
  };
}

/** One NodePool and its NodeClass (of the same name) in the API, with what Karpenter launched for them. */
export class KarpenterObjects {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly ec2: EC2Client,
    readonly nodePoolName: string,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  get nodeClassName(): string {
    return this.nodePoolName;
  }

  /**
   * Creates the KWOKNodeClass and marks it Ready through its status: a cloud
   * provider's NodeClass controller would, once the class resolved, and
   * Karpenter launches only for a NodePool whose class is Ready.
   */
  async createNodeClass(): Promise<void> {
    const name = this.nodeClassName;
    await this.custom.createClusterCustomObject({ ...NODE_CLASSES, body: { apiVersion: `${KWOK.group}/${KWOK.version}`, kind: 'KWOKNodeClass', metadata: { name }, spec: {} } });
    const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString(), observedGeneration: 1 };
    await this.custom.patchClusterCustomObjectStatus({ ...NODE_CLASSES, name, body: { status: { conditions: [ready] } } }, MERGE_PATCH_OPTIONS);
  }

  async createNodePool(options: NodePoolOptions): Promise<void> {
    await this.custom.createClusterCustomObject({ ...KARPENTER, plural: 'nodepools', body: nodePoolBody(this.nodePoolName, this.nodeClassName, options) });
  }

  async setDisruption(disruption: NodePoolDisruption): Promise<void> {
    await this.custom.patchClusterCustomObject({ ...KARPENTER, plural: 'nodepools', name: this.nodePoolName, body: { spec: { disruption } } }, MERGE_PATCH_OPTIONS);
  }

  async listNodeClaims(): Promise<NodeClaim[]> {
    const list = (await this.custom.listClusterCustomObject({ ...KARPENTER, plural: 'nodeclaims', labelSelector: `${NODEPOOL_LABEL}=${this.nodePoolName}` })) as { items: NodeClaim[] };
    return list.items;
  }

  async listNodes(): Promise<V1Node[]> {
    return (await this.core.listNode({ labelSelector: `${NODEPOOL_LABEL}=${this.nodePoolName}` })).items;
  }

  /** Terminates the NodeClaims' instances, then deletes the NodeClaims, Nodes, NodePool and NodeClass; what is gone already is fine. */
  async deleteAll(): Promise<void> {
    const claims = await this.listNodeClaims();
    const instanceIds = claims.flatMap((claim) => instanceIdFromProviderId(claim.status?.providerID) ?? []);
    if (instanceIds.length > 0) await this.ec2.send(new TerminateInstancesCommand({ InstanceIds: instanceIds }));
    const noFinalizers = { metadata: { finalizers: null } };
    const claimsApi = { ...KARPENTER, plural: 'nodeclaims' };
    for (const { metadata } of claims) {
      const { name } = metadata;
      await forceDelete(
        `NodeClaim ${name}`,
        () => this.custom.patchClusterCustomObject({ ...claimsApi, name, body: noFinalizers }, MERGE_PATCH_OPTIONS),
        () => this.custom.deleteClusterCustomObject({ ...claimsApi, name }),
      );
    }
    for (const node of await this.listNodes()) {
      const name = node.metadata?.name ?? '';
      await forceDelete(
        `Node ${name}`,
        () => this.core.patchNode({ name, body: noFinalizers }, MERGE_PATCH_OPTIONS),
        () => this.core.deleteNode({ name }),
      );
    }
    const pool = { ...KARPENTER, plural: 'nodepools', name: this.nodePoolName };
    await forceDelete(
      `NodePool ${pool.name}`,
      () => this.custom.patchClusterCustomObject({ ...pool, body: noFinalizers }, MERGE_PATCH_OPTIONS),
      () => this.custom.deleteClusterCustomObject(pool),
    );
    const nodeClass = { ...NODE_CLASSES, name: this.nodeClassName };
    await forceDelete(
      `KWOKNodeClass ${nodeClass.name}`,
      () => this.custom.patchClusterCustomObject({ ...nodeClass, body: noFinalizers }, MERGE_PATCH_OPTIONS),
      () => this.custom.deleteClusterCustomObject(nodeClass),
    );
  }
}

/** Removes the object's finalizers, then deletes it; one already gone is fine. */
async function forceDelete(what: string, removeFinalizers: () => Promise<unknown>, remove: () => Promise<unknown>): Promise<void> {
  for (const step of [removeFinalizers, remove]) {
    await step().catch((error: unknown) => {
      if (!/404|not found/i.test(String(error))) throw new Error(`deleting ${what}: ${String(error)}`);
    });
  }
}
