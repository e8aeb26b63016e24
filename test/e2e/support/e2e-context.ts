// The e2e test files' view of their worker's harness, one of those
// test/e2e/global-setup.ts started (one per e2e worker): API clients, an EC2 client on moto, namespaces, GPU scheduler
// processes, and log tails printed when a test fails.
import { EC2Client } from '@aws-sdk/client-ec2';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { beforeEach, inject, onTestFailed } from 'vitest';
import type { KarpenterBinaries } from '../../../local/builds/karpenter-binaries';
import { startKarpenter, type Karpenter, type KarpenterOptions } from '../../../local/addons/karpenter';
import type { KueueBinaries } from '../../../local/builds/kueue-binaries';
import { startKueue, type Kueue, type KueueOptions } from '../../../local/addons/kueue';
import type { ControlPlaneInfo } from '../../../local/control-plane/control-plane';
import { startKubeScheduler } from '../../../local/control-plane/kube-scheduler';
import type { ManagedProcess } from '../../../local/common/managed-process';
import { fileTail } from '../../../local/common/managed-process';
import { awsClientConfig, awsEnvironment } from '../../../local/aws/moto';
import { GPU_SCHEDULER_NAME, type ExtenderSettings } from '../../../local/scheduler-config';
import type { NodeClients } from '../../../local/nodes/gpu-nodes';
import { waitFor } from '../../../local/common/wait';

export interface LocalHarnessInfo {
  controlPlane: ControlPlaneInfo;
  motoUrl: string;
  /** Karpenter (kwok provider launching moto instances) and its CRDs (local/builds/karpenter-binaries.ts); files start it with local/addons/karpenter.ts. */
  karpenter: KarpenterBinaries;
  /** Kueue's controller manager, CRDs and webhook manifests (local/builds/kueue-binaries.ts); files start it with local/addons/kueue.ts. */
  kueue: KueueBinaries;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One per e2e worker; a file uses the one of its VITEST_POOL_ID. */
    localHarnesses: LocalHarnessInfo[];
  }
}

export interface E2eHarness {
  info: LocalHarnessInfo;
  /** system:masters. */
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  ec2: EC2Client;
  nodeClients: NodeClients;
  /** A fresh namespace for this test file. */
  createNamespace(prefix: string): Promise<string>;
  /** Starts a kube-scheduler with only the gpu-scheduler profile, calling the extender. */
  startGpuScheduler(extender: ExtenderSettings, listen?: { address: string; port: number }): Promise<ManagedProcess>;
  /**
   * Starts Karpenter (kwok provider launching moto instances) against this
   * control plane, as its admin, describing instance types from moto;
   * `options` set the NodePool and the instance types.
   */
  startKarpenter(options?: Omit<KarpenterOptions, 'binaries' | 'kubeConfig' | 'kubeconfigPath' | 'workDir' | 'ec2' | 'motoUrl'>): Promise<Karpenter>;
  /**
   * Starts Kueue (Job integration, its webhooks, TAS) against this control
   * plane, as its admin; its log joins the tails printed on failure.
   */
  startKueue(options?: Omit<KueueOptions, 'binaries' | 'kubeConfig' | 'kubeconfigPath' | 'workDir'>): Promise<Kueue>;
  /** Tails of every component log, including GPU schedulers started here. */
  logTails(lines?: number): string;
  /**
   * Deletes every Node and force-deletes every pod bound to a node, leaving an
   * empty cluster. e2e files run one at a time on each worker's cluster, so
   * whatever an earlier file left behind is no longer used; a file whose assertions depend on the whole
   * cluster (e.g. the extender's scores) calls this first.
   */
  resetCluster(): Promise<void>;
  /**
   * A file's teardown: stops what it started (in the order given: the
   * scheduler before the extender it calls), deletes its namespace and
   * resets the cluster. Each argument may be undefined (setup failed early).
   */
  tearDown(namespace: string, ...running: ({ stop(): Promise<void> } | undefined)[]): Promise<void>;
}

let gpuSchedulerStarts = 0;

/** This worker's harness: files running side by side each get a cluster and a moto_server of their own. */
function workerHarness(harnesses: LocalHarnessInfo[] | undefined, poolId: string | undefined): LocalHarnessInfo {
  if (!harnesses || harnesses.length === 0) throw new Error('the e2e harness is not running: run e2e tests through vitest (project e2e), whose globalSetup starts it');
  const info = harnesses[Number(poolId ?? '1') - 1];
  if (!info) throw new Error(`no e2e harness for worker ${String(poolId)}: the global setup started ${harnesses.length} (one per worker of the e2e project)`);
  return info;
}

/**
 * Call once at the top of an e2e test file. Also points in-process AWS SDK
 * clients at moto (AWS_ENDPOINT_URL …) and prints component logs when a test fails.
 */
export function e2eHarness(): E2eHarness {
  const info = workerHarness(inject('localHarnesses'), process.env.VITEST_POOL_ID);
  Object.assign(process.env, awsEnvironment(info.motoUrl));

  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(info.controlPlane.adminKubeconfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const ec2 = new EC2Client(awsClientConfig(info.motoUrl));
  const extraLogs: ManagedProcess[] = [];

  const logTails = (lines = 30): string => {
    const files = Object.entries(info.controlPlane.logFiles).map(([name, path]) => `--- ${name} ---\n${fileTail(path, lines)}`);
    const extra = extraLogs.map((p) => `--- ${p.name} ---\n${p.logTail(lines)}`);
    return [...files, ...extra].join('\n');
  };

  beforeEach(() => {
    onTestFailed(() => {
      console.error(`component log tails after the failure:\n${logTails()}`);
    });
  });

  async function resetCluster(): Promise<void> {
    const nodes = await core.listNode();
    for (const node of nodes.items) {
      if (node.metadata?.name) await core.deleteNode({ name: node.metadata.name });
    }
    // Without kubelets, bound pods never finish a graceful deletion: delete them at once.
    const pods = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName!=' });
    for (const pod of pods.items) {
      const { name, namespace } = pod.metadata ?? {};
      if (!name || !namespace) continue;
      await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch((error: unknown) => {
        if (!/404|not found/i.test(String(error))) throw error;
      });
    }
  }

  return {
    info,
    kubeConfig,
    core,
    apps,
    ec2,
    nodeClients: { core, ec2 },
    async createNamespace(prefix) {
      const ns = await core.createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
      const name = ns.metadata?.name;
      if (!name) throw new Error('the apiserver returned a namespace without a name');
      return name;
    },
    startKarpenter(options = {}) {
      return startKarpenter({
        ...options,
        binaries: info.karpenter,
        kubeConfig,
        kubeconfigPath: info.controlPlane.adminKubeconfig,
        workDir: info.controlPlane.logDir,
        ec2,
        motoUrl: info.motoUrl,
      });
    },
    async startKueue(options = {}) {
      const kueue = await startKueue({
        ...options,
        binaries: info.kueue,
        kubeConfig,
        kubeconfigPath: info.controlPlane.adminKubeconfig,
        workDir: info.controlPlane.logDir,
      });
      extraLogs.push(kueue.process);
      return kueue;
    },
    async startGpuScheduler(extender, listen) {
      gpuSchedulerStarts += 1;
      const proc = await startKubeScheduler({
        binary: info.controlPlane.kubeSchedulerBinary,
        kubeconfig: info.controlPlane.schedulerKubeconfig,
        workDir: info.controlPlane.logDir,
        name: `${GPU_SCHEDULER_NAME}-${process.pid}-${gpuSchedulerStarts}`,
        profiles: [GPU_SCHEDULER_NAME],
        extender,
        ...(listen && { listen }),
      });
      extraLogs.push(proc);
      return proc;
    },
    logTails,
    async tearDown(namespace, ...running) {
      for (const process of running) await process?.stop();
      if (namespace) await core.deleteNamespace({ name: namespace });
      await resetCluster();
      // The namespace controller deletes the pods of a deleted namespace in
      // its own time; a pod still Pending then would sit in the next file's
      // gpu-scheduler queue (and its metrics), so the file ends only when
      // none is left.
      if (namespace) {
        await waitFor(`the pods of namespace ${namespace} deleted`, async () => ((await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined), {
          timeoutMs: 60_000,
        });
      }
    },
    resetCluster,
  };
}
