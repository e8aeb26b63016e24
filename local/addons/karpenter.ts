// Karpenter against the local kube-apiserver: its controller built from the
// Go module with the kwok cloud provider wrapped to launch EC2 instances in
// moto (local/build-karpenter.ts), its CRDs from the same module, a
// KWOKNodeClass and a NodePool, and an instance-type list read from EC2
// (local/karpenter-instance-types.ts). Karpenter creates a NodeClaim, an EC2
// instance and a Node named and identified after it (providerID
// aws:///<zone>/<instance-id>) for each launch; with no kubelet, a stand-in
// (local/karpenter-node-boot.ts) reports each launched node's capacity (GPUs
// included) and readiness.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TerminateInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { KarpenterBinaries } from '../build/karpenter-binaries';
import { instanceIdFromProviderId } from '../../lambdas/labeler/node-match';
import { LOCAL_CLUSTER_NAME } from '../nodes/gpu-nodes';
import { httpGet } from '../common/http-probe';
import { installKarpenterCrds } from './karpenter-crds';
import { describeKarpenterInstanceTypes, DEFAULT_KARPENTER_INSTANCE_TYPES, type KarpenterInstanceType, type KarpenterInstanceTypeSpec } from './karpenter-instance-types';
import { NODEPOOL_LABEL, startNodeBoot, type NodeBoot } from './karpenter-node-boot';
import { ManagedProcess } from '../common/managed-process';
import { awsEnvironment } from '../aws/moto';
import { freeLoopbackPort } from '../common/ports';
import { waitFor } from '../common/wait';

export { NODEPOOL_LABEL } from './karpenter-node-boot';

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const KARPENTER = { group: 'karpenter.sh', version: 'v1' } as const;
const KWOK = { group: 'karpenter.kwok.sh', version: 'v1alpha1' } as const;

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
  status?: { nodeName?: string; providerID?: string; capacity?: Record<string, string>; conditions?: Condition[] };
}

export interface NodePoolOptions {
  /** Default `gpu`. */
  name?: string;
  /** Added to the pool's own: on-demand, linux. */
  requirements?: NodeSelectorRequirement[];
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
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
}

export interface KarpenterOptions {
  binaries: KarpenterBinaries;
  /** An admin client: installs the CRDs, NodePool and NodeClass, and stands in for the launched nodes' kubelets. */
  kubeConfig: KubeConfig;
  /** The kubeconfig file Karpenter's controller uses (the admin one; see docs/local-harness.md). */
  kubeconfigPath: string;
  /** Where its instance-types file and log go. */
  workDir: string;
  /** EC2 (moto) to describe the instance types, and to end the instances of what stop() deletes. */
  ec2: EC2Client;
  /** The same moto, for Karpenter's controller: it launches an instance there for each NodeClaim. */
  motoUrl: string;
  /** The cluster the launched instances are tagged for (`kubernetes.io/cluster/<name>: owned`). Default LOCAL_CLUSTER_NAME. */
  clusterName?: string;
  /** Default DEFAULT_KARPENTER_INSTANCE_TYPES at their on-demand prices. */
  instanceTypes?: readonly KarpenterInstanceTypeSpec[];
  nodePool?: NodePoolOptions;
  /**
   * Karpenter's batching window (BATCH_IDLE_DURATION / BATCH_MAX_DURATION):
   * how long it waits for more pending pods before deciding. Defaults 1s/10s
   * in production; here 500ms/3s to keep tests short.
   */
  batchIdle?: string;
  batchMax?: string;
}

export interface Karpenter {
  readonly process: ManagedProcess;
  readonly nodePoolName: string;
  readonly nodeClassName: string;
  readonly instanceTypes: readonly KarpenterInstanceType[];
  /** The NodeClaims of this NodePool. */
  listNodeClaims(): Promise<NodeClaim[]>;
  /** The Nodes Karpenter launched for this NodePool. */
  listNodes(): Promise<V1Node[]>;
  /** Changes the NodePool's consolidation, e.g. to turn it on once a test has set its nodes up. */
  setDisruption(disruption: NodePoolDisruption): Promise<void>;
  logTail(lines?: number): string;
  /**
   * Stops the controller and the node stand-in, then deletes the NodeClaims
   * (terminating their instances), Nodes, NodePool and NodeClass (finalizers
   * removed: nothing is left to finish a drain without kubelets). The CRDs
   * stay for the next start.
   */
  stop(): Promise<void>;
}

function nodePoolBody(name: string, nodeClassName: string, options: NodePoolOptions): object {
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
          expireAfter: 'Never',
        },
      },
      // By default a test asserts what was launched; consolidation must not replace it meanwhile.
      disruption: options.disruption ?? { consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' },
      ...(options.limits ? { limits: options.limits } : {}),
    },
  };
}

/** Installs the CRDs, NodeClass and NodePool, writes the instance-type list, starts Karpenter and waits for /readyz. */
export async function startKarpenter(options: KarpenterOptions): Promise<Karpenter> {
  const { kubeConfig } = options;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const nodePoolName = options.nodePool?.name ?? 'gpu';
  const nodeClassName = nodePoolName;
  const nodeClasses = { ...KWOK, plural: 'kwoknodeclasses' };

  const instanceTypes = await describeKarpenterInstanceTypes(
    options.ec2,
    options.instanceTypes ?? DEFAULT_KARPENTER_INSTANCE_TYPES.map((instanceType) => ({ instanceType })),
  );
  mkdirSync(options.workDir, { recursive: true });
  const instanceTypesFile = join(options.workDir, `karpenter-${nodePoolName}-instance-types.json`);
  writeFileSync(instanceTypesFile, JSON.stringify(instanceTypes.map((type) => type.kwok), null, 2));

  let proc: ManagedProcess | undefined;
  let boot: NodeBoot | undefined;

  const listNodeClaims = async (): Promise<NodeClaim[]> => {
    const list = (await custom.listClusterCustomObject({ ...KARPENTER, plural: 'nodeclaims', labelSelector: `${NODEPOOL_LABEL}=${nodePoolName}` })) as { items: NodeClaim[] };
    return list.items;
  };
  const listNodes = async (): Promise<V1Node[]> => (await core.listNode({ labelSelector: `${NODEPOOL_LABEL}=${nodePoolName}` })).items;

  /** Removes the object's finalizers, then deletes it; one already gone is fine. */
  const forceDelete = async (what: string, patch: () => Promise<unknown>, remove: () => Promise<unknown>): Promise<void> => {
    for (const step of [patch, remove]) {
      await step().catch((error: unknown) => {
        if (!/404|not found/i.test(String(error))) throw new Error(`deleting ${what}: ${String(error)}`);
      });
    }
  };
  const noFinalizers = { metadata: { finalizers: null } };

  const stop = async (): Promise<void> => {
    await proc?.stop();
    await boot?.stop();
    const claims = await listNodeClaims();
    const instanceIds = claims.flatMap((claim) => instanceIdFromProviderId(claim.status?.providerID) ?? []);
    if (instanceIds.length > 0) await options.ec2.send(new TerminateInstancesCommand({ InstanceIds: instanceIds }));
    for (const claim of claims) {
      const name = claim.metadata.name;
      await forceDelete(
        `NodeClaim ${name}`,
        () => custom.patchClusterCustomObject({ ...KARPENTER, plural: 'nodeclaims', name, body: noFinalizers }, MERGE_PATCH),
        () => custom.deleteClusterCustomObject({ ...KARPENTER, plural: 'nodeclaims', name }),
      );
    }
    for (const node of await listNodes()) {
      const name = node.metadata?.name ?? '';
      await forceDelete(
        `Node ${name}`,
        () => core.patchNode({ name, body: noFinalizers }, MERGE_PATCH),
        () => core.deleteNode({ name }),
      );
    }
    await forceDelete(
      `NodePool ${nodePoolName}`,
      () => custom.patchClusterCustomObject({ ...KARPENTER, plural: 'nodepools', name: nodePoolName, body: noFinalizers }, MERGE_PATCH),
      () => custom.deleteClusterCustomObject({ ...KARPENTER, plural: 'nodepools', name: nodePoolName }),
    );
    await forceDelete(
      `KWOKNodeClass ${nodeClassName}`,
      () => custom.patchClusterCustomObject({ ...nodeClasses, name: nodeClassName, body: noFinalizers }, MERGE_PATCH),
      () => custom.deleteClusterCustomObject({ ...nodeClasses, name: nodeClassName }),
    );
  };

  try {
    await installKarpenterCrds(kubeConfig, options.binaries);
    await custom.createClusterCustomObject({
      ...nodeClasses,
      body: { apiVersion: `${KWOK.group}/${KWOK.version}`, kind: 'KWOKNodeClass', metadata: { name: nodeClassName }, spec: {} },
    });
    // The kwok provider runs no NodeClass controller; a cloud provider's would
    // mark its class Ready once resolved, and Karpenter launches only for a
    // NodePool whose class is Ready.
    await custom.patchClusterCustomObjectStatus(
      {
        ...nodeClasses,
        name: nodeClassName,
        body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString(), observedGeneration: 1 }] } },
      },
      MERGE_PATCH,
    );
    await custom.createClusterCustomObject({ ...KARPENTER, plural: 'nodepools', body: nodePoolBody(nodePoolName, nodeClassName, options.nodePool ?? {}) });

    const healthPort = await freeLoopbackPort();
    const started = new ManagedProcess({
      name: `karpenter-${nodePoolName}`,
      command: options.binaries.binary,
      args: [],
      logFile: join(options.workDir, `karpenter-${nodePoolName}.log`),
      env: {
        ...process.env,
        ...awsEnvironment(options.motoUrl),
        CLUSTER_NAME: options.clusterName ?? LOCAL_CLUSTER_NAME,
        KUBECONFIG: options.kubeconfigPath,
        INSTANCE_TYPES_FILE_PATH: instanceTypesFile,
        DISABLE_LEADER_ELECTION: 'true',
        METRICS_PORT: String(await freeLoopbackPort()),
        HEALTH_PROBE_PORT: String(healthPort),
        BATCH_IDLE_DURATION: options.batchIdle ?? '500ms',
        BATCH_MAX_DURATION: options.batchMax ?? '3s',
        LOG_LEVEL: 'debug',
      },
    });
    proc = started;
    boot = startNodeBoot(core, nodePoolName, instanceTypes);
    await waitFor(
      `Karpenter /readyz on port ${healthPort}`,
      async () => ((await httpGet(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined),
      { timeoutMs: 90_000, failFast: () => started.assertRunning() },
    );
  } catch (error) {
    const tail = proc ? `\n--- Karpenter log tail ---\n${proc.logTail()}` : '';
    await stop().catch(() => undefined);
    throw new Error(`Karpenter (NodePool ${nodePoolName}) did not start: ${error instanceof Error ? error.message : String(error)}${tail}`);
  }
  const running = proc;
  const nodeBoot = boot;

  return {
    process: running,
    nodePoolName,
    nodeClassName,
    instanceTypes,
    listNodeClaims,
    listNodes,
    setDisruption: async (disruption) => {
      await custom.patchClusterCustomObject({ ...KARPENTER, plural: 'nodepools', name: nodePoolName, body: { spec: { disruption } } }, MERGE_PATCH);
    },
    logTail: (lines = 40) => {
      const bootError = nodeBoot.lastError === undefined ? '' : `\n(node stand-in's last error: ${String(nodeBoot.lastError)})`;
      return running.logTail(lines) + bootError;
    },
    stop,
  };
}
