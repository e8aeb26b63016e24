// kube-controller-manager for the local control plane: every controller but
// the node lifecycle one (without kubelet heartbeats it would mark every node
// NotReady and evict its pods).
import { join } from 'node:path';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { SERVICE_CLUSTER_IP_RANGE } from './kube-apiserver';

export interface ControllerManagerOptions {
  readonly binary: string;
  /** The system:kube-controller-manager identity's kubeconfig. */
  readonly kubeconfig: string;
  /** The key service-account tokens are signed with, and the CA put into them. */
  readonly serviceAccountPrivateKeyFile: string;
  readonly caFile: string;
  readonly workDir: string;
  readonly logDir: string;
}

/** Starts kube-controller-manager and waits until /healthz answers 200. */
export async function startControllerManager(options: ControllerManagerOptions): Promise<ManagedProcess> {
  const port = await freeLoopbackPort();
  return startReadyProcess(
    {
      name: 'kube-controller-manager',
      command: options.binary,
      logFile: join(options.logDir, 'kube-controller-manager.log'),
      args: [
        `--kubeconfig=${options.kubeconfig}`,
        `--authentication-kubeconfig=${options.kubeconfig}`,
        `--authorization-kubeconfig=${options.kubeconfig}`,
        // Clients use tokens, so there is no client-CA ConfigMap to look up.
        '--authentication-skip-lookup=true',
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${join(options.workDir, 'kcm-certs')}`,
        '--leader-elect=false',
        // Without kubelets every node would go NotReady after the grace period and
        // its pods would be evicted: the node lifecycle controller must stay off.
        '--controllers=*,-node-lifecycle-controller',
        `--service-account-private-key-file=${options.serviceAccountPrivateKeyFile}`,
        `--root-ca-file=${options.caFile}`,
        `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
        // The default client limit (20 requests/s) makes a ReplicaSet of 1,000 pods take a minute to create.
        '--kube-api-qps=300',
        '--kube-api-burst=600',
        '--v=1',
      ],
    },
    { what: 'kube-controller-manager /healthz', probe: async () => (await httpGet(`https://127.0.0.1:${port}/healthz`, { insecureTls: true })).status === 200 },
  );
}
