// What the preflight reads from the target cluster, with the user's own
// kubeconfig: lists and gets only, nothing is written. Each read that the
// identity may not make (403) or that the cluster does not serve (404) is kept
// as such, so one missing permission costs one check, not the run.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
  type KubeConfig,
  type V1ConfigMap,
  type V1Node,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { errorMessage } from '../../lambdas/common/error-message';
import { kubeStatusCode } from '../../lambdas/kube';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import type { AppConfig } from '../app-config/app-config';

/** A read the cluster refused or does not serve, and why, in a few words. */
export interface Unreadable {
  readonly unreadable: string;
}

export type Read<T> = T | Unreadable;

export function isUnreadable<T>(value: Read<T>): value is Unreadable {
  return typeof value === 'object' && value !== null && 'unreadable' in value;
}

export interface WorkloadFacts {
  readonly kind: 'DaemonSet' | 'Deployment';
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly images: readonly string[];
}

export interface NodeFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Allocatable `nvidia.com/gpu`. */
  readonly gpus: number;
  readonly taints: readonly { readonly key: string; readonly effect: string }[];
  readonly conditionTypes: readonly string[];
}

export interface NodePoolFacts {
  readonly name: string;
  readonly requirements: readonly { readonly key: string; readonly operator: string; readonly values: readonly string[] }[];
  readonly taints: readonly { readonly key: string; readonly value?: string; readonly effect: string }[];
  /** `spec.limits['nvidia.com/gpu']`, when set. */
  readonly gpuLimit?: string;
}

/** A ConfigMap holding a KubeSchedulerConfiguration, and its profiles' scheduler names. */
export interface SchedulerConfigFacts {
  readonly namespace: string;
  readonly name: string;
  readonly profiles: readonly string[];
}

export interface ClusterFacts {
  /** The API server's version, e.g. `{ minor: '1.36', gitVersion: 'v1.36.3-eks-…' }`. */
  readonly version: { readonly minor: string; readonly gitVersion: string };
  readonly nodes: Read<readonly NodeFacts[]>;
  readonly namespaces: Read<readonly string[]>;
  readonly workloads: Read<readonly WorkloadFacts[]>;
  readonly crds: Read<readonly string[]>;
  /** Karpenter's NodePools; `absent` when the cluster serves no `karpenter.sh` NodePool. */
  readonly nodePools: Read<readonly NodePoolFacts[] | 'absent'>;
  readonly schedulerConfigs: Read<readonly SchedulerConfigFacts[]>;
  /** The lease the configured scheduler would lead on, when it exists. */
  readonly schedulerLease: Read<{ readonly holder: string | undefined } | undefined>;
  /** Drivers of the cluster's DRA ResourceSlices and names of its DeviceClasses. */
  readonly dra: Read<{ readonly drivers: readonly string[]; readonly deviceClasses: readonly string[] }>;
  /** Pods labelled `gpu.nvidia.com/deletion-cost: enabled`: what the reconciler reads metrics for. */
  readonly optedInPods: Read<number>;
}

export class ClusterUnreachable extends Error {
  override readonly name = 'ClusterUnreachable';
}

/** The label every object the stack applies carries. */
export const PART_OF_STACK = { key: 'app.kubernetes.io/part-of', value: 'gpu-scheduling' } as const;
const DELETION_COST_OPT_IN = 'gpu.nvidia.com/deletion-cost=enabled';

function why(error: unknown): Unreadable {
  const code = kubeStatusCode(error);
  if (code === 403) return { unreadable: 'forbidden to this identity' };
  if (code === 404) return { unreadable: 'not served by this cluster' };
  return { unreadable: errorMessage(error).split('\n')[0] ?? 'failed' };
}

async function read<T>(run: () => Promise<T>): Promise<Read<T>> {
  try {
    return await run();
  } catch (error) {
    return why(error);
  }
}

const stringMap = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

function nodeFacts(node: V1Node): NodeFacts {
  const gpus = Number(node.status?.allocatable?.[GPU_RESOURCE] ?? 0);
  return {
    name: node.metadata?.name ?? '',
    labels: node.metadata?.labels ?? {},
    gpus: Number.isFinite(gpus) ? gpus : 0,
    taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect })),
    conditionTypes: (node.status?.conditions ?? []).map((c) => c.type),
  };
}

function nodePoolFacts(item: unknown): NodePoolFacts {
  const pool = item as { metadata?: { name?: string }; spec?: { limits?: Record<string, unknown>; template?: { spec?: { requirements?: unknown[]; taints?: unknown[] } } } };
  const spec = pool.spec?.template?.spec;
  const requirements = (spec?.requirements ?? []).map((r) => {
    const req = r as { key?: unknown; operator?: unknown; values?: unknown };
    return { key: String(req.key ?? ''), operator: String(req.operator ?? ''), values: Array.isArray(req.values) ? req.values.map(String) : [] };
  });
  const taints = (spec?.taints ?? []).map((t) => {
    const taint = t as { key?: unknown; value?: unknown; effect?: unknown };
    return { key: String(taint.key ?? ''), ...(typeof taint.value === 'string' ? { value: taint.value } : {}), effect: String(taint.effect ?? '') };
  });
  const limit = pool.spec?.limits?.[GPU_RESOURCE];
  return { name: pool.metadata?.name ?? '', requirements, taints, ...(limit === undefined ? {} : { gpuLimit: String(limit) }) };
}

/** The profiles of a KubeSchedulerConfiguration in a ConfigMap's data, if it holds one. */
export function schedulerProfiles(configMap: V1ConfigMap): string[] | undefined {
  for (const text of Object.values(configMap.data ?? {})) {
    if (!text.includes('KubeSchedulerConfiguration')) continue;
    try {
      const parsed = parse(text) as { kind?: unknown; profiles?: { schedulerName?: unknown }[] };
      if (parsed.kind !== 'KubeSchedulerConfiguration') continue;
      return (parsed.profiles ?? [{}]).map((p) => (typeof p.schedulerName === 'string' ? p.schedulerName : 'default-scheduler'));
    } catch {
      continue;
    }
  }
  return undefined;
}

/** How long to wait for the API server's first answer before calling it unreachable. */
const REACH_TIMEOUT_MS = 15_000;

async function serverVersion(kubeConfig: KubeConfig): Promise<ClusterFacts['version']> {
  const server = kubeConfig.getCurrentCluster()?.server ?? '(no server in the kubeconfig)';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REACH_TIMEOUT_MS / 1000} s`)), REACH_TIMEOUT_MS);
  });
  try {
    const info = await Promise.race([kubeConfig.makeApiClient(VersionApi).getCode(), timeout]);
    const minor = `${info.major}.${info.minor.replace(/\D+$/, '')}`;
    return { minor, gitVersion: info.gitVersion };
  } catch (error) {
    const cause = errorMessage(error).split('\n')[0] ?? 'no answer';
    throw new ClusterUnreachable(`cannot reach the Kubernetes API at ${server} (context ${kubeConfig.getCurrentContext() || 'none'}): ${cause}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Everything the checks look at, read once. Throws ClusterUnreachable when the API server does not answer. */
export async function readClusterFacts(kubeConfig: KubeConfig, config: AppConfig): Promise<ClusterFacts> {
  const version = await serverVersion(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const [nodes, namespaces, daemonSets, deployments, crds, nodePools, configMaps, schedulerLease, slices, deviceClasses, optedInPods] = await Promise.all([
    read(async () => (await core.listNode()).items.map(nodeFacts)),
    read(async () => (await core.listNamespace()).items.map((ns) => ns.metadata?.name ?? '')),
    read(async () => (await apps.listDaemonSetForAllNamespaces()).items),
    read(async () => (await apps.listDeploymentForAllNamespaces()).items),
    read(async () => (await kubeConfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items.map((crd) => crd.metadata?.name ?? '')),
    read(async (): Promise<readonly NodePoolFacts[] | 'absent'> => {
      try {
        const list = (await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools' })) as { items?: unknown[] };
        return (list.items ?? []).map(nodePoolFacts);
      } catch (error) {
        if (kubeStatusCode(error) === 404) return 'absent';
        throw error;
      }
    }),
    read(async () => (await core.listConfigMapForAllNamespaces()).items),
    read(async () => {
      try {
        const lease = await kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: config.scheduler.leaseName, namespace: config.scheduler.namespace });
        return { holder: lease.spec?.holderIdentity ?? undefined };
      } catch (error) {
        if (kubeStatusCode(error) === 404) return undefined;
        throw error;
      }
    }),
    read(async () => ((await custom.listClusterCustomObject({ group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices' })) as { items?: { spec?: { driver?: unknown } }[] }).items ?? []),
    read(async () => ((await custom.listClusterCustomObject({ group: 'resource.k8s.io', version: 'v1', plural: 'deviceclasses' })) as { items?: { metadata?: { name?: unknown } }[] }).items ?? []),
    read(async () => (await core.listPodForAllNamespaces({ labelSelector: DELETION_COST_OPT_IN })).items.length),
  ]);
  const workloads: Read<WorkloadFacts[]> = isUnreadable(daemonSets)
    ? daemonSets
    : isUnreadable(deployments)
      ? deployments
      : [
          ...daemonSets.map((ds) => ({ kind: 'DaemonSet' as const, namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '', labels: stringMap(ds.metadata?.labels), images: (ds.spec?.template.spec?.containers ?? []).map((c) => c.image ?? '') })),
          ...deployments.map((d) => ({ kind: 'Deployment' as const, namespace: d.metadata?.namespace ?? '', name: d.metadata?.name ?? '', labels: stringMap(d.metadata?.labels), images: (d.spec?.template.spec?.containers ?? []).map((c) => c.image ?? '') })),
        ];
  const schedulerConfigs = isUnreadable(configMaps)
    ? configMaps
    : configMaps.flatMap((cm) => {
        const profiles = schedulerProfiles(cm);
        return profiles === undefined ? [] : [{ namespace: cm.metadata?.namespace ?? '', name: cm.metadata?.name ?? '', profiles }];
      });
  const dra = isUnreadable(slices)
    ? slices
    : {
        drivers: [...new Set(slices.map((s) => String(s.spec?.driver ?? '')))].filter((d) => d !== ''),
        deviceClasses: isUnreadable(deviceClasses) ? [] : deviceClasses.map((c) => String(c.metadata?.name ?? '')),
      };
  return { version, nodes, namespaces, workloads, crds, nodePools, schedulerConfigs, schedulerLease, dra, optedInPods };
}
