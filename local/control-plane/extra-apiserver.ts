// A second kube-apiserver on the control plane's etcd, with the same flags,
// tokens and RBAC (they live in etcd), on its own port and serving
// certificate, so a test can stop and restart it under a client without
// touching the API server the rest of the harness uses. Restarting keeps the
// port and the certificate, as a restarted API server behind a load balancer
// would.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlaneInfo } from './control-plane';
import { httpGet } from '../common/http-probe';
import { writeKubeconfig } from './kubeconfig-file';
import { ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { waitFor } from '../common/wait';

export interface ExtraApiServer {
  readonly url: string;
  /** A copy of `kubeconfig` (its user and token) aimed at this API server. */
  kubeconfigFor(kubeconfig: string, path: string): string;
  /** Starts it (again); resolves once /readyz answers 200. */
  start(): Promise<void>;
  /** SIGTERM, as a rolling restart does (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Watches of `resource` (e.g. `pods`) it holds open now, from its own metrics (apiserver_longrunning_requests). */
  openWatches(resource: string): Promise<number>;
}

export async function extraApiServer(info: ControlPlaneInfo, name: string): Promise<ExtraApiServer> {
  const port = await freeLoopbackPort();
  const certDir = join(info.workDir, `${name}-certs`);
  mkdirSync(certDir, { recursive: true });
  const args = info.apiServer.args.map((arg) => (arg.startsWith('--secure-port=') ? `--secure-port=${port}` : arg.startsWith('--cert-dir=') ? `--cert-dir=${certDir}` : arg));
  const url = `https://127.0.0.1:${port}`;
  const admin = new KubeConfig();
  admin.loadFromFile(info.adminKubeconfig);
  const adminToken = admin.getCurrentUser()?.token ?? '';
  let proc: ManagedProcess | undefined;
  const caPem = () => readFileSync(join(certDir, 'apiserver.crt'), 'utf8');
  return {
    url,
    kubeconfigFor(kubeconfig, path) {
      const source = new KubeConfig();
      source.loadFromFile(kubeconfig);
      const user = source.getCurrentUser();
      if (!user?.token) throw new Error(`${kubeconfig} has no bearer token`);
      writeKubeconfig(path, { server: url, caPem: caPem(), user: user.name, token: user.token });
      return path;
    },
    async start() {
      if (proc !== undefined) throw new Error(`${name} is already running`);
      const started = new ManagedProcess({ name, command: info.apiServer.binary, logFile: join(info.logDir, `${name}.log`), args });
      proc = started;
      await waitFor(
        `${name} /readyz`,
        async () => {
          const res = await httpGet(`${url}/readyz`, { bearerToken: adminToken, insecureTls: true });
          return res.status === 200 ? true : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 250, failFast: () => started.assertRunning() },
      );
    },
    async stop() {
      await proc?.stop();
      proc = undefined;
    },
    async openWatches(resource) {
      const res = await httpGet(`${url}/metrics`, { bearerToken: adminToken, ca: caPem() });
      if (res.status !== 200) throw new Error(`${name} /metrics answered ${res.status}`);
      return longrunningWatches(res.body, resource);
    },
  };
}

/** Sums the `apiserver_longrunning_requests` gauge over the WATCH series of one resource (any group, scope, component). */
export function longrunningWatches(metrics: string, resource: string): number {
  let open = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_longrunning_requests{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    if (!labels.includes('verb="WATCH"') || !labels.includes(`resource="${resource}"`)) continue;
    open += Number(line.slice(line.lastIndexOf('}') + 1).trim()) || 0;
  }
  return open;
}
