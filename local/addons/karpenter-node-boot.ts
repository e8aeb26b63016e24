// Stands in for the kubelet (and NVIDIA's device plugin) of each node
// Karpenter launches: there is none here, so nothing else would report the
// node's capacity or make it Ready, and Karpenter would never find it
// initialized. Allocatable stays what Karpenter wrote when it created the
// Node (capacity less the overhead its cloud provider reserves: the kwok
// provider's kube-reserved here), so the node offers pods what Karpenter's
// scheduling simulation assumed, as a kubelet configured by Karpenter does.
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import type { KarpenterInstanceType } from './karpenter-instance-types';
import { sleep } from '../common/wait';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
const POLL_MS = 250;

export interface NodeBoot {
  /** The last error of a pass (e.g. a node of a type not in the list), for log tails. */
  readonly lastError: unknown;
  stop(): Promise<void>;
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * One pass: every node of the NodePool not yet Ready gets, through the status
 * subresource, its instance type's capacity (nvidia.com/gpu included) and a
 * Ready condition, as a booted kubelet reports them; its allocatable is left
 * as Karpenter created it, which must cover every resource of the capacity.
 */
export async function bootLaunchedNodes(core: CoreV1Api, nodePoolName: string, types: ReadonlyMap<string, KarpenterInstanceType>): Promise<string[]> {
  const booted: string[] = [];
  const nodes = await core.listNode({ labelSelector: `${NODEPOOL_LABEL}=${nodePoolName}` });
  for (const node of nodes.items) {
    const name = node.metadata?.name;
    if (!name || isReady(node) || node.metadata?.deletionTimestamp) continue;
    const typeName = node.metadata?.labels?.[INSTANCE_TYPE_LABEL] ?? '';
    const type = types.get(typeName);
    if (!type) throw new Error(`Karpenter launched node ${name} of instance type "${typeName}", which is not in its instance-type list`);
    const allocatable = node.status?.allocatable ?? {};
    const missing = Object.keys(type.capacity).filter((resource) => allocatable[resource] === undefined);
    if (missing.length > 0) throw new Error(`Karpenter created node ${name} without an allocatable ${missing.join(', ')}`);
    const now = new Date().toISOString();
    await core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            capacity: type.capacity,
            conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'local harness: launched by Karpenter', lastHeartbeatTime: now, lastTransitionTime: now }],
            addresses: [{ type: 'Hostname', address: name }],
          },
        },
      },
      MERGE_PATCH_OPTIONS,
    );
    booted.push(name);
  }
  return booted;
}

/** Boots the NodePool's launched nodes every 250 ms until stopped. */
export function startNodeBoot(core: CoreV1Api, nodePoolName: string, types: readonly KarpenterInstanceType[]): NodeBoot {
  const byName = new Map(types.map((type) => [type.kwok.name, type]));
  let running = true;
  let lastError: unknown;
  const loop = (async () => {
    while (running) {
      try {
        await bootLaunchedNodes(core, nodePoolName, byName);
      } catch (error) {
        lastError = error;
      }
      await sleep(POLL_MS);
    }
  })();
  return {
    get lastError() {
      return lastError;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
