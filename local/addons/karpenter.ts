// Karpenter against the local kube-apiserver: its controller built from the
// Go module with the kwok cloud provider wrapped to launch EC2 instances in
// moto (local/builds/karpenter-binaries.ts), its CRDs from the same module, a
// KWOKNodeClass and a NodePool (karpenter-objects.ts), and an instance-type
// list read from EC2 (karpenter-instance-types.ts). Karpenter creates a
// NodeClaim, an EC2 instance and a Node named and identified after it
// (providerID aws:///<zone>/<instance-id>) for each launch; with no kubelet, a
// stand-in (karpenter-node-boot.ts) reports each launched node's capacity
// (GPUs included) and readiness.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { errorMessage } from '../../lambdas/common/error-message';
import { parseDuration } from '../../lambdas/scheduling/duration';
import { awsEnvironment } from '../aws/moto';
import type { KarpenterBinaries } from '../builds/karpenter-binaries';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { Teardown } from '../common/teardown';
import { waitFor } from '../common/wait';
import { LOCAL_CLUSTER_NAME } from '../nodes/gpu-nodes';
import { installKarpenterCrds } from './karpenter-crds';
import { describeKarpenterInstanceTypes, DEFAULT_KARPENTER_INSTANCE_TYPES, type KarpenterInstanceType, type KarpenterInstanceTypeSpec } from './karpenter-instance-types';
import { startNodeBoot } from './karpenter-node-boot';
import { DEFAULT_DISRUPTION_BUDGETS, KarpenterObjects, type NodeClaim, type NodePoolDisruption, type NodePoolOptions } from './karpenter-objects';

export { NODEPOOL_LABEL } from './karpenter-node-boot';
export type { NodeClaim, NodePoolDisruption, NodePoolOptions, NodeSelectorRequirement } from './karpenter-objects';

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
  /** Changes the NodePool's consolidation, e.g. to keep it off while a test sets its nodes up. */
  setDisruption(disruption: NodePoolDisruption): Promise<void>;
  /**
   * Turns consolidation on for the nodes already running, so that Karpenter's
   * next pass weighs every one of them. Setting `consolidateAfter` alone races
   * in Karpenter: the NodePool change marks the cluster unconsolidated at once,
   * each NodeClaim's Consolidatable condition follows a moment later, and a
   * disruption pass in between weighs only the nodes already marked. It may
   * take the wrong node, or find no move, mark the cluster consolidated and
   * look again only after the next change it watches (a pod bound or deleted,
   * a node or NodePool changed) or five minutes. So the budget stays at 0 nodes
   * until every NodeClaim is Consolidatable and none is still nominated, and
   * opening it is the NodePool change the next pass starts from. A node
   * Karpenter nominated for a pending pod is no candidate for
   * max(2 × BATCH_MAX_DURATION, 10 s) (`nominationWindow`,
   * pkg/controllers/state/statenode.go); a nomination is made while the pod is
   * pending, so that window has passed once it has since the NodeClaim's last
   * pod event (the bind).
   */
  startConsolidation(disruption: Omit<NodePoolDisruption, 'budgets'>): Promise<void>;
  logTail(lines?: number): string;
  /**
   * Stops the controller and the node stand-in, then deletes the NodeClaims
   * (terminating their instances), Nodes, NodePool and NodeClass (finalizers
   * removed: nothing is left to finish a drain without kubelets). The CRDs
   * stay for the next start.
   */
  stop(): Promise<void>;
}

/** When a pod last bound to or left the NodeClaim's node (0 if never). */
function lastPodEvent(claim: NodeClaim): number {
  const time = Date.parse(claim.status?.lastPodEventTime ?? '');
  return Number.isNaN(time) ? 0 : time;
}

function isConsolidatable(claim: NodeClaim): boolean {
  return claim.status?.conditions?.some((c) => c.type === 'Consolidatable' && c.status === 'True') ?? false;
}

/** The kwok provider's instance-types file, from EC2's facts about each type. */
async function writeInstanceTypes(options: KarpenterOptions, nodePoolName: string): Promise<{ file: string; types: KarpenterInstanceType[] }> {
  const types = await describeKarpenterInstanceTypes(options.ec2, options.instanceTypes ?? DEFAULT_KARPENTER_INSTANCE_TYPES.map((instanceType) => ({ instanceType })));
  mkdirSync(options.workDir, { recursive: true });
  const file = join(options.workDir, `karpenter-${nodePoolName}-instance-types.json`);
  writeFileSync(file, JSON.stringify(types.map((type) => type.kwok), null, 2));
  return { file, types };
}

/** The controller with the admin kubeconfig and moto, until /readyz answers (caches synced, CRDs served). */
async function startController(options: KarpenterOptions, nodePoolName: string, instanceTypesFile: string): Promise<ManagedProcess> {
  const healthPort = await freeLoopbackPort();
  return startReadyProcess(
    {
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
        BATCH_MAX_DURATION: batchMax(options),
        LOG_LEVEL: 'debug',
      },
    },
    { what: `Karpenter /readyz on port ${healthPort}`, probe: async () => (await httpGet(`http://127.0.0.1:${healthPort}/readyz`)).status === 200, timeoutMs: 90_000 },
  );
}

const batchMax = (options: KarpenterOptions): string => options.batchMax ?? '3s';

/** Installs the CRDs, NodeClass and NodePool, writes the instance-type list, starts Karpenter and waits for /readyz. */
export async function startKarpenter(options: KarpenterOptions): Promise<Karpenter> {
  const nodePoolName = options.nodePool?.name ?? 'gpu';
  const objects = new KarpenterObjects(options.kubeConfig, options.ec2, nodePoolName);
  const teardown = new Teardown();
  // Added first, so it runs last: once nothing is left to act on the objects.
  teardown.add(`the NodePool ${nodePoolName} and what was launched for it`, () => objects.deleteAll());
  try {
    const instanceTypes = await writeInstanceTypes(options, nodePoolName);
    await installKarpenterCrds(options.kubeConfig, options.binaries);
    await objects.createNodeClass();
    await objects.createNodePool(options.nodePool ?? {});
    const boot = startNodeBoot(options.kubeConfig.makeApiClient(CoreV1Api), nodePoolName, instanceTypes.types);
    teardown.add('the node stand-in', () => boot.stop());
    const controller = await startController(options, nodePoolName, instanceTypes.file);
    const nominationWindowMs = Math.max(2 * (parseDuration(batchMax(options)) ?? 0), 10_000);
    teardown.add('the Karpenter controller', () => controller.stop());
    return {
      process: controller,
      nodePoolName,
      nodeClassName: objects.nodeClassName,
      instanceTypes: instanceTypes.types,
      listNodeClaims: () => objects.listNodeClaims(),
      listNodes: () => objects.listNodes(),
      setDisruption: (disruption) => objects.setDisruption(disruption),
      startConsolidation: async (disruption) => {
        await objects.setDisruption({ ...disruption, budgets: [{ nodes: '0' }] });
        await waitFor(`every NodeClaim of the NodePool ${nodePoolName} Consolidatable and past its nomination window`, async () => {
          const claims = await objects.listNodeClaims();
          return claims.every(isConsolidatable) && claims.every((claim) => Date.now() > lastPodEvent(claim) + nominationWindowMs) ? true : undefined;
        }, { timeoutMs: 60_000 + nominationWindowMs, intervalMs: 250 });
        await objects.setDisruption({ ...disruption, budgets: [...DEFAULT_DISRUPTION_BUDGETS] });
      },
      logTail: (lines = 40) => controller.logTail(lines) + (boot.lastError === undefined ? '' : `\n(node stand-in's last error: ${String(boot.lastError)})`),
      stop: () => teardown.run(),
    };
  } catch (error) {
    await teardown.run(() => undefined);
    throw new Error(`Karpenter (NodePool ${nodePoolName}) did not start: ${errorMessage(error)}`);
  }
}
