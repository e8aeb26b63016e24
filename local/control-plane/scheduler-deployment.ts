// The gpu-scheduler Deployment as EKS runs it, with a local process for its
// pod: what a kubelet does for the one replica, done from the API. The
// Deployment, its ConfigMap and its TLS Secret are the stack's own objects
// (cdk/lib/scheduler/second-scheduler-manifests.ts); the Deployment
// controller makes a pod for each rollout and the default scheduler binds it.
// When a new pod is bound, the real kube-scheduler process is restarted on
// the configuration that pod would read (the ConfigMap's extender URL, the
// Secret's files as mounted), then the pod is marked Ready so the rollout
// finishes. The Secret's files are kept current meanwhile, as a kubelet keeps
// a mounted Secret (kube-scheduler reloads its client certificate from them,
// not its CA bundle). Names of load balancers resolve through `hosts`, the
// harness's DNS: the scheduler connects to the loopback port and verifies
// the name (tlsConfig.serverName).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppsV1Api, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { KubeSchedulerExtender } from '../../cdk/lib/scheduler/extender-configuration';
import { mountSecret, type SecretMount } from '../addons/secret-mount';
import type { ManagedProcess } from '../common/managed-process';
import { finishTerminatingPods, markPodRunning } from '../nodes/pod-status';
import type { ExtenderSettings } from '../scheduler-config';

export interface SchedulerDeploymentOptions {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly namespace: string;
  /** The Deployment's name; its ConfigMap is `<name>-config`. */
  readonly name: string;
  readonly tlsSecret: string;
  /** Where the Secret's files are written (the pod's mount). */
  readonly dir: string;
  /** Load balancer names → `127.0.0.1:<port>`. */
  readonly hosts: ReadonlyMap<string, string>;
  /** Starts the gpu-scheduler process with these extender settings. */
  readonly start: (extender: ExtenderSettings) => Promise<ManagedProcess>;
}

export interface SchedulerDeployment {
  /** Pods started so far (each a restart of the process, but the first). */
  readonly starts: number;
  /** The extender URL the running process calls (its loopback form). */
  readonly calling: string | undefined;
  /** While on, new pods stay unready and the running process is left as it is: a rollout that does not finish. */
  holdRollouts(hold: boolean): void;
  /** The last failure of the loop, if the latest round failed (for log tails). */
  readonly lastError: unknown;
  stop(): Promise<void>;
}

const CONFIG_FILE = 'scheduler-config.json';

function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

export function runSchedulerDeployment(options: SchedulerDeploymentOptions): SchedulerDeployment {
  const { core, namespace, name } = options;
  mkdirSync(options.dir, { recursive: true });
  const files = { certFile: join(options.dir, 'tls.crt'), keyFile: join(options.dir, 'tls.key'), caFile: join(options.dir, 'ca.crt') };
  const mount: SecretMount = mountSecret(core, { namespace, name: options.tlsSecret }, options.dir, ['tls.crt', 'tls.key', 'ca.crt'], 300);
  let process: ManagedProcess | undefined;
  let starts = 0;
  let calling: string | undefined;
  let hold = false;
  let stopped = false;
  let lastError: unknown;

  /** The extender settings the pod reads: its ConfigMap's entry, with the load balancer's name resolved. */
  const settingsOfConfigMap = async (): Promise<ExtenderSettings> => {
    const configMap = await core.readNamespacedConfigMap({ namespace, name: `${name}-config` });
    const configuration = JSON.parse(configMap.data?.[CONFIG_FILE] ?? '{}') as { extenders?: KubeSchedulerExtender[] };
    const extender = configuration.extenders?.[0];
    if (extender === undefined) throw new Error(`${namespace}/${name}-config names no extender`);
    const url = new URL(extender.urlPrefix);
    const address = options.hosts.get(url.hostname);
    if (address === undefined) throw new Error(`the harness's DNS has no ${url.hostname}`);
    return {
      urlPrefix: `${url.protocol}//${address}`,
      weight: extender.weight,
      ignorable: extender.ignorable,
      preempt: extender.preemptVerb !== undefined,
      httpTimeoutSeconds: Number.parseInt(extender.httpTimeout, 10),
      nodeCacheCapable: extender.nodeCacheCapable,
      ...(extender.tlsConfig === undefined ? {} : { tlsConfig: { ...files, serverName: url.hostname } }),
    };
  };

  const round = async (): Promise<void> => {
    await finishTerminatingPods(core, namespace);
    const deployment = await options.apps.readNamespacedDeployment({ namespace, name });
    const selector = Object.entries(deployment.spec?.selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`).join(',');
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;
    for (const pod of pods) {
      if (pod.spec?.nodeName === undefined || isReady(pod) || pod.metadata?.deletionTimestamp !== undefined || hold) continue;
      const extender = await settingsOfConfigMap();
      // The new pod's kubelet mounts the Secret as it is now.
      await writeSecretFiles();
      const previous = process;
      process = undefined;
      await previous?.stop();
      process = await options.start(extender);
      starts += 1;
      calling = extender.urlPrefix;
      await markPodRunning(core, { namespace, name: pod.metadata?.name ?? '' });
    }
  };

  const writeSecretFiles = async (): Promise<void> => {
    const secret = await core.readNamespacedSecret({ namespace, name: options.tlsSecret });
    for (const [key, path] of [['tls.crt', files.certFile], ['tls.key', files.keyFile], ['ca.crt', files.caFile]] as const) {
      const value = secret.data?.[key];
      if (value === undefined) throw new Error(`the Secret ${namespace}/${options.tlsSecret} has no ${key} yet`);
      writeFileSync(path, Buffer.from(value, 'base64'), { mode: 0o600 });
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await round();
        lastError = undefined;
      } catch (error) {
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();

  return {
    get starts() {
      return starts;
    },
    get calling() {
      return calling;
    },
    get lastError() {
      return lastError ?? mount.lastError;
    },
    holdRollouts: (value) => {
      hold = value;
    },
    stop: async () => {
      stopped = true;
      await loop;
      mount.stop();
      await process?.stop();
    },
  };
}
