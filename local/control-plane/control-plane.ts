// Starts a real Kubernetes control plane on loopback: etcd, kube-apiserver,
// kube-controller-manager and a default kube-scheduler. There is no kubelet:
// nodes are API objects (see local/gpu-nodes.ts) and pod status is patched
// by local/pod-status.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeBinaries } from '../build/kube-binaries';
import { LAMBDA_COMPONENTS, newIdentities, writeServiceAccountKeys, writeTokenFile, type LambdaComponent } from './credentials';
import { httpGet } from '../common/http-probe';
import { startKubeScheduler } from './kube-scheduler';
import { writeKubeconfig } from './kubeconfig-file';
import { applyLambdaRbac } from './lambda-rbac';
import { installWriteLimitPolicies } from '../policies/write-limit-policy';
import { installGpuIntentPolicies } from '../policies/gpu-intent-policies';
import { ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { waitFor } from '../common/wait';
import { errorMessage } from '../../lambdas/common/error-message';

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
   * one on the same etcd (local/extra-apiserver.ts) and restart it at will.
   */
  apiServer: { binary: string; args: string[] };
  /** PEM bundle that verifies the apiserver's self-signed serving certificate. */
  caFile: string;
  /** system:masters. */
  adminKubeconfig: string;
  /** system:kube-scheduler, for extra kube-scheduler processes (e.g. the GPU scheduler). */
  schedulerKubeconfig: string;
  /** The Lambdas' least-privilege identities (local/lambda-rbac.ts). */
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

export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';

async function startEtcd(binary: string, workDir: string): Promise<{ proc: ManagedProcess; url: string }> {
  const clientPort = await freeLoopbackPort();
  const peerPort = await freeLoopbackPort();
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc = new ManagedProcess({
    name: 'etcd',
    command: binary,
    logFile: join(workDir, 'logs', 'etcd.log'),
    args: [
      '--name=local',
      `--data-dir=${join(workDir, 'etcd')}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=local=${peer}`,
      // Throwaway data: durability costs only time on a shared CI disk.
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
  });
  await waitFor(
    'etcd /health',
    async () => {
      const res = await httpGet(`${url}/health`);
      return res.status === 200 && res.body.includes('"health":"true"') ? true : undefined;
    },
    { timeoutMs: 30_000, failFast: () => proc.assertRunning() },
  );
  return { proc, url };
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const log = options.log ?? ((message: string) => console.log(message));
  const { binaries } = options;
  const workDir = mkdtempSync(join(tmpdir(), 'eks-gpu-scheduling-cp-'));
  const logDir = join(workDir, 'logs');
  const certDir = join(workDir, 'apiserver-certs');
  const kubeconfigDir = join(workDir, 'kubeconfigs');
  for (const dir of [logDir, certDir, kubeconfigDir]) mkdirSync(dir, { recursive: true });

  const processes: ManagedProcess[] = [];
  const logTails = (lines = 40): string =>
    processes.map((p) => `--- ${p.name} (${p.logFile}) ---\n${p.logTail(lines)}`).join('\n');
  const stop = async (): Promise<void> => {
    // Reverse start order: clients first, etcd last.
    for (const proc of [...processes].reverse()) await proc.stop();
    if (!options.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
  };

  try {
    const started = Date.now();
    const etcd = await startEtcd(binaries.path.etcd, workDir);
    processes.push(etcd.proc);
    log(`[control-plane] etcd ready at ${etcd.url}`);

    const identities = newIdentities();
    const tokenFile = join(workDir, 'tokens.csv');
    writeTokenFile(tokenFile, identities);
    const saKeys = writeServiceAccountKeys(workDir);
    const apiPort = await freeLoopbackPort();
    const apiServerUrl = `https://127.0.0.1:${apiPort}`;
    const apiServerArgs = [
      `--etcd-servers=${etcd.url}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      // Self-signed serving certificate (and its CA) generated by the apiserver itself.
      `--cert-dir=${certDir}`,
      `--token-auth-file=${tokenFile}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${saKeys.publicKeyFile}`,
      `--service-account-signing-key-file=${saKeys.privateKeyFile}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      // No kubelet and no service-account token wait: pods are admitted at once, and
      // node objects are not tainted not-ready on creation (nothing would untaint them).
      '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
      '--allow-privileged=true',
      // The kubernetes Service cannot point at a loopback address; nothing here needs it.
      '--endpoint-reconciler-type=none',
      // Webhooks and aggregated APIs named by a Service are called at its
      // EndpointSlice's address (no kube-proxy here to route a ClusterIP):
      // Kueue's admission webhooks run this way (local/kueue-webhooks.ts).
      '--enable-aggregator-routing=true',
      '--profiling=false',
      '--v=1',
    ];
    const apiserver = new ManagedProcess({
      name: 'kube-apiserver',
      command: binaries.path['kube-apiserver'],
      logFile: join(logDir, 'kube-apiserver.log'),
      args: apiServerArgs,
    });
    processes.push(apiserver);
    const caFile = join(certDir, 'apiserver.crt');
    await waitFor(
      'kube-apiserver /readyz',
      async () => {
        const res = await httpGet(`${apiServerUrl}/readyz`, {
          bearerToken: identities.admin.token,
          ca: readFileSync(caFile, 'utf8'),
        });
        return res.status === 200 ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, failFast: () => apiserver.assertRunning() },
    );
    log(`[control-plane] kube-apiserver ready at ${apiServerUrl} after ${Math.round((Date.now() - started) / 1000)}s`);

    const caPem = readFileSync(caFile, 'utf8');
    const kubeconfigFor = (name: string, user: string, token: string): string => {
      const path = join(kubeconfigDir, `${name}.kubeconfig`);
      writeKubeconfig(path, { server: apiServerUrl, caPem, user, token });
      return path;
    };
    const adminKubeconfig = kubeconfigFor('admin', identities.admin.user, identities.admin.token);
    const schedulerKubeconfig = kubeconfigFor('kube-scheduler', identities.scheduler.user, identities.scheduler.token);
    const kcmKubeconfig = kubeconfigFor(
      'kube-controller-manager',
      identities.controllerManager.user,
      identities.controllerManager.token,
    );
    const lambdaKubeconfigs = Object.fromEntries(
      LAMBDA_COMPONENTS.map((c) => [c, kubeconfigFor(c, identities.lambdas[c].user, identities.lambdas[c].token)]),
    ) as Record<LambdaComponent, string>;

    const admin = new KubeConfig();
    admin.loadFromFile(adminKubeconfig);
    await applyLambdaRbac(admin);
    await installWriteLimitPolicies(admin, lambdaKubeconfigs);
    await installGpuIntentPolicies(admin);

    const kcmPort = await freeLoopbackPort();
    const kcm = new ManagedProcess({
      name: 'kube-controller-manager',
      command: binaries.path['kube-controller-manager'],
      logFile: join(logDir, 'kube-controller-manager.log'),
      args: [
        `--kubeconfig=${kcmKubeconfig}`,
        `--authentication-kubeconfig=${kcmKubeconfig}`,
        `--authorization-kubeconfig=${kcmKubeconfig}`,
        // Clients use tokens, so there is no client-CA ConfigMap to look up.
        '--authentication-skip-lookup=true',
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(workDir, 'kcm-certs')}`,
        '--leader-elect=false',
        // Without kubelets every node would go NotReady after the grace period and
        // its pods would be evicted: the node lifecycle controller must stay off.
        '--controllers=*,-node-lifecycle-controller',
        `--service-account-private-key-file=${saKeys.privateKeyFile}`,
        `--root-ca-file=${caFile}`,
        `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
        // The default client limit (20 requests/s) makes a ReplicaSet of 1,000 pods take a minute to create.
        '--kube-api-qps=300',
        '--kube-api-burst=600',
        '--v=1',
      ],
    });
    processes.push(kcm);
    await waitFor(
      'kube-controller-manager /healthz',
      async () => {
        const res = await httpGet(`https://127.0.0.1:${kcmPort}/healthz`, { insecureTls: true });
        return res.status === 200 ? true : undefined;
      },
      { timeoutMs: 60_000, failFast: () => kcm.assertRunning() },
    );
    log('[control-plane] kube-controller-manager ready');

    if (options.defaultScheduler ?? true) {
      processes.push(
        await startKubeScheduler({
          binary: binaries.path['kube-scheduler'],
          kubeconfig: schedulerKubeconfig,
          workDir: logDir,
          name: 'default-scheduler',
          profiles: ['default-scheduler'],
          verbosity: 1,
        }),
      );
      log('[control-plane] default kube-scheduler ready');
    }
    log(`[control-plane] ready in ${Math.round((Date.now() - started) / 1000)}s (work dir ${workDir})`);

    return {
      info: {
        kubernetesVersion: binaries.version,
        binDir: binaries.binDir,
        workDir,
        apiServerUrl,
        etcdUrl: etcd.url,
        apiServer: { binary: binaries.path['kube-apiserver'], args: apiServerArgs },
        caFile,
        adminKubeconfig,
        schedulerKubeconfig,
        lambdaKubeconfigs,
        kubeSchedulerBinary: binaries.path['kube-scheduler'],
        logDir,
        logFiles: Object.fromEntries(processes.map((p) => [p.name, p.logFile])),
      },
      logTails,
      stop,
    };
  } catch (error) {
    const message = errorMessage(error);
    const tails = logTails();
    await stop();
    throw new Error(`control plane failed to start: ${message}\n${tails}`);
  }
}
