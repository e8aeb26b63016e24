// etcd for the local control plane: one member on loopback ports, its data in
// the control plane's work folder.
import { join } from 'node:path';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';

export interface Etcd {
  readonly process: ManagedProcess;
  /** The client URL (its v3 JSON gateway serves e.g. /v3/kv/compaction). */
  readonly url: string;
}

/** Starts etcd and waits until /health says it is healthy. */
export async function startEtcd(binary: string, workDir: string, logDir: string): Promise<Etcd> {
  const url = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const peer = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const proc = await startReadyProcess(
    {
      name: 'etcd',
      command: binary,
      logFile: join(logDir, 'etcd.log'),
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
    },
    {
      what: 'etcd /health',
      probe: async () => {
        const res = await httpGet(`${url}/health`);
        return res.status === 200 && res.body.includes('"health":"true"');
      },
      timeoutMs: 30_000,
    },
  );
  return { process: proc, url };
}
