// Starts a real Kubernetes control plane on loopback: etcd, kube-apiserver,
// the Lambdas' identities and RBAC, kube-controller-manager and a default
// kube-scheduler, each waited for in turn. There is no kubelet: nodes are API
// objects (local/nodes/gpu-nodes.ts) and pod status is patched by
// local/nodes/pod-status.ts. The product's own admission policies are not
// installed here: callers that run the Lambdas as deployed install them
// (local/policies/product-policies.ts).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../../lambdas/common/error-message';
import type { KubeBinaries } from '../builds/kube-binaries';
import type { ManagedProcess } from '../common/managed-process';
import { Teardown } from '../common/teardown';
import { writeCredentials } from './credentials';
import { startEtcd, type Etcd } from './etcd';
import { startApiServer, type ApiServer } from './kube-apiserver';
import { startControllerManager } from './kube-controller-manager';
import { startKubeScheduler } from './kube-scheduler';
import { writeIdentityKubeconfigs, type IdentityKubeconfigs } from './kubeconfig-file';
import { applyLambdaRbac, type LambdaComponent } from './lambda-rbac';

/** Plain data (survives vitest's provide/inject): where everything is. */
export interface ControlPlaneInfo {
  kubernetesVersion: string;
  binDir: string;
  workDir: string;
  apiServerUrl: string;
  /** etcd's client URL (its v3 JSON gateway serves e.g. /v3/kv/compaction). */
  etcdUrl: string;
  /**
   * The kube-apiserver binary and its arguments, so a test can start a second
   * one on the same etcd (local/control-plane/extra-apiserver.ts) and restart it at will.
   */
  apiServer: { binary: string; args: string[] };
  /** PEM bundle that verifies the apiserver's self-signed serving certificate. */
  caFile: string;
  /** system:masters. */
  adminKubeconfig: string;
  /** system:kube-scheduler, for extra kube-scheduler processes (e.g. the GPU scheduler). */
  schedulerKubeconfig: string;
  /** The Lambdas' least-privilege identities (local/control-plane/lambda-rbac.ts). */
  lambdaKubeconfigs: Record<LambdaComponent, string>;
  kubeSchedulerBinary: string;
  /** Where component logs go (extra schedulers log here too). */
  logDir: string;
  /** Log file of each component started with the control plane. */
  logFiles: Record<string, string>;
}

export interface ControlPlane {
  info: ControlPlaneInfo;
  /** The last lines of every component's log, for failure reports. */
  logTails(lines?: number): string;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  binaries: KubeBinaries;
  /** Start a default-scheduler too (EKS has one); the GPU scheduler is started separately. */
  defaultScheduler?: boolean;
  /** Keep the temp directory (logs, etcd data) after stop, e.g. to debug. */
  keepWorkDir?: boolean;
  log?: (message: string) => void;
}

interface WorkDirs {
  workDir: string;
  logDir: string;
  certDir: string;
  kubeconfigDir: string;
}

function makeWorkDirs(): WorkDirs {
  const workDir = mkdtempSync(join(tmpdir(), 'eks-gpu-scheduling-cp-'));
  const dirs = { workDir, logDir: join(workDir, 'logs'), certDir: join(workDir, 'apiserver-certs'), kubeconfigDir: join(workDir, 'kubeconfigs') };
  for (const dir of [dirs.logDir, dirs.certDir, dirs.kubeconfigDir]) mkdirSync(dir, { recursive: true });
  return dirs;
}

interface Started {
  binaries: KubeBinaries;
  dirs: WorkDirs;
  etcd: Etcd;
  apiServer: ApiServer;
  kubeconfigs: IdentityKubeconfigs;
  processes: readonly ManagedProcess[];
}

function infoOf({ binaries, dirs, etcd, apiServer, kubeconfigs, processes }: Started): ControlPlaneInfo {
  return {
    kubernetesVersion: binaries.version,
    binDir: binaries.binDir,
    workDir: dirs.workDir,
    apiServerUrl: apiServer.url,
    etcdUrl: etcd.url,
    apiServer: { binary: binaries.path['kube-apiserver'], args: apiServer.args },
    caFile: apiServer.caFile,
    adminKubeconfig: kubeconfigs.admin,
    schedulerKubeconfig: kubeconfigs.scheduler,
    lambdaKubeconfigs: kubeconfigs.lambdas,
    kubeSchedulerBinary: binaries.path['kube-scheduler'],
    logDir: dirs.logDir,
    logFiles: Object.fromEntries(processes.map((p) => [p.name, p.logFile])),
  };
}

function adminClient(kubeconfig: string): KubeConfig {
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  return admin;
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const log = options.log ?? ((message: string) => console.log(message));
  const { binaries } = options;
  const dirs = makeWorkDirs();
  const processes: ManagedProcess[] = [];
  const teardown = new Teardown();
  // Added first, so it runs last: after every component stopped.
  teardown.add('the work folder', async () => {
    if (!options.keepWorkDir) rmSync(dirs.workDir, { recursive: true, force: true });
  });
  /** Components stop in reverse start order: clients first, etcd last. */
  const started = (proc: ManagedProcess): ManagedProcess => {
    processes.push(proc);
    teardown.add(proc.name, () => proc.stop());
    return proc;
  };
  const logTails = (lines = 40): string => processes.map((p) => `--- ${p.name} (${p.logFile}) ---\n${p.logTail(lines)}`).join('\n');
  const stop = (): Promise<void> => teardown.run((message) => log(`[control-plane] ${message}`));
  const startedAt = Date.now();
  const seconds = (): number => Math.round((Date.now() - startedAt) / 1000);

  try {
    const etcd = await startEtcd(binaries.path.etcd, dirs.workDir, dirs.logDir);
    started(etcd.process);
    log(`[control-plane] etcd ready at ${etcd.url}`);

    const { identities, tokenFile, serviceAccountKeys } = writeCredentials(dirs.workDir);
    const apiServer = await startApiServer(binaries.path['kube-apiserver'], etcd.url, { certDir: dirs.certDir, tokenFile, serviceAccountKeys }, identities.admin.token, dirs.logDir);
    started(apiServer.process);
    log(`[control-plane] kube-apiserver ready at ${apiServer.url} after ${seconds()}s`);

    const kubeconfigs = writeIdentityKubeconfigs(dirs.kubeconfigDir, apiServer.url, apiServer.caPem, identities);
    await applyLambdaRbac(adminClient(kubeconfigs.admin));

    started(
      await startControllerManager({
        binary: binaries.path['kube-controller-manager'],
        kubeconfig: kubeconfigs.controllerManager,
        serviceAccountPrivateKeyFile: serviceAccountKeys.privateKeyFile,
        caFile: apiServer.caFile,
        workDir: dirs.workDir,
        logDir: dirs.logDir,
      }),
    );
    log('[control-plane] kube-controller-manager ready');

    if (options.defaultScheduler ?? true) {
      started(
        await startKubeScheduler({
          binary: binaries.path['kube-scheduler'],
          kubeconfig: kubeconfigs.scheduler,
          workDir: dirs.logDir,
          name: 'default-scheduler',
          profiles: ['default-scheduler'],
          verbosity: 1,
        }),
      );
      log('[control-plane] default kube-scheduler ready');
    }
    log(`[control-plane] ready in ${seconds()}s (work dir ${dirs.workDir})`);

    return { info: infoOf({ binaries, dirs, etcd, apiServer, kubeconfigs, processes }), logTails, stop };
  } catch (error) {
    const message = errorMessage(error);
    const tails = logTails();
    await stop();
    throw new Error(`control plane failed to start: ${message}\n${tails}`);
  }
}
