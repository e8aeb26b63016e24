import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { ALWAYS_ALLOW_PATHS } from '../../cdk/lib/scheduler/second-scheduler-manifests';
import { schedulerConfiguration, type ExtenderSettings } from '../scheduler-config';

export interface KubeSchedulerOptions {
  binary: string;
  /** Kubeconfig of the system:kube-scheduler identity. */
  kubeconfig: string;
  /** Directory for its config file and log (kept until the control plane stops). */
  workDir: string;
  name: string;
  profiles: string[];
  extender?: ExtenderSettings;
  /** The deployed gpu-scheduler profile; default: with an extender (schedulerConfiguration). */
  gpuProfile?: boolean;
  /** Its API client's rate limit (schedulerConfiguration's default otherwise). */
  clientRateLimit?: { qps: number; burst: number };
  verbosity?: number;
  /**
   * Where its secure port listens; default a free loopback port. A pod IP must
   * not be loopback for the API server's pod proxy to reach it.
   */
  listen?: { address: string; port: number };
}

/** Starts kube-scheduler and waits until /readyz answers 200 (informers synced). */
export async function startKubeScheduler(options: KubeSchedulerOptions): Promise<ManagedProcess> {
  const address = options.listen?.address ?? '127.0.0.1';
  const port = options.listen?.port ?? (await freeLoopbackPort());
  const configFile = join(options.workDir, `${options.name}.yaml`);
  writeFileSync(
    configFile,
    schedulerConfiguration({
      kubeconfig: options.kubeconfig,
      profiles: options.profiles,
      extender: options.extender,
      gpuProfile: options.gpuProfile,
      clientRateLimit: options.clientRateLimit,
    }),
  );
  return startReadyProcess(
    {
      name: options.name,
      command: options.binary,
      logFile: join(options.workDir, `${options.name}.log`),
      args: [
        `--config=${configFile}`,
        `--bind-address=${address}`,
        `--secure-port=${port}`,
        `--authentication-kubeconfig=${options.kubeconfig}`,
        `--authorization-kubeconfig=${options.kubeconfig}`,
        // Clients use tokens, so there is no client-CA ConfigMap to look up.
        '--authentication-skip-lookup=true',
        // As deployed: /metrics is read through the API server's pod proxy, which brings no credentials.
        `--authorization-always-allow-paths=${ALWAYS_ALLOW_PATHS.join(',')}`,
        `--v=${options.verbosity ?? 2}`,
      ],
    },
    { what: `${options.name} /readyz`, probe: async () => (await httpGet(`https://${address}:${port}/readyz`, { insecureTls: true })).status === 200 },
  );
}
