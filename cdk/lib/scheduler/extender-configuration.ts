import type { SchedulerExtenderConfig } from '../../app-config/app-config';

/** Files of the client certificate the scheduler presents and of the CAs it trusts for the extender's server certificate. */
export interface ExtenderTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
}

/**
 * The extender's `tlsConfig`: mutual TLS (all three files), or HTTPS verified
 * against `caFile` alone; `serverName` (the local harness's stand-in for DNS)
 * is the name to verify when the URL names an address.
 */
export type ExtenderTlsConfig = (ExtenderTlsFiles | { readonly caFile: string }) & { readonly serverName?: string };

/**
 * How kube-scheduler calls the extender: the config's `scheduler.extender`
 * (weight, ignorable, timeout, preempt) and where the extender is. One shape
 * for the deployed second scheduler, the local harness and the simulator.
 */
export interface ExtenderSettings extends Readonly<SchedulerExtenderConfig> {
  /** `http(s)://host:port` (may hold CDK tokens after the scheme); the scheduler POSTs to `<urlPrefix>/<verb>`. */
  readonly urlPrefix: string;
  /** Mutual TLS: the ALB admits only callers holding this client certificate; or, over plain HTTPS, the CAs that verify the ALB. */
  readonly tlsConfig?: ExtenderTlsConfig;
  /**
   * Node names only, as deployed (the default): full Node objects pass the
   * ALB's 1 MB body limit at a few hundred nodes. `false` only for a test of that mode.
   */
  readonly nodeCacheCapable?: boolean;
}

/** An entry of a KubeSchedulerConfiguration's `extenders` (kubescheduler.config.k8s.io/v1 Extender). */
export type KubeSchedulerExtender = {
  readonly urlPrefix: string;
  readonly filterVerb: 'filter';
  readonly prioritizeVerb: 'prioritize';
  readonly preemptVerb?: 'preempt';
  readonly weight: number;
  readonly enableHTTPS: boolean;
  readonly nodeCacheCapable: boolean;
  /** Go duration, e.g. `5s`. */
  readonly httpTimeout: string;
  readonly ignorable: boolean;
  readonly tlsConfig?: ExtenderTlsConfig;
};

/** The extender entry of a KubeSchedulerConfiguration; the deployed scheduler and the local harness both use it, so tests run what is deployed. */
export function extenderConfiguration(settings: ExtenderSettings): KubeSchedulerExtender {
  return {
    urlPrefix: settings.urlPrefix,
    filterVerb: 'filter',
    prioritizeVerb: 'prioritize',
    // Without a preempt verb, preemption dry-runs skip the extender's
    // filter and can evict pods from a node the extender then rejects.
    ...(settings.preempt ? { preemptVerb: 'preempt' as const } : {}),
    weight: settings.weight,
    enableHTTPS: settings.urlPrefix.startsWith('https://'),
    nodeCacheCapable: settings.nodeCacheCapable ?? true,
    httpTimeout: `${settings.httpTimeoutSeconds}s`,
    ignorable: settings.ignorable,
    ...(settings.tlsConfig ? { tlsConfig: { ...settings.tlsConfig } } : {}),
    // No managedResources: every pod of this scheduler's one profile goes
    // to the extender. A list would send only pods whose containers request
    // a listed resource, and a pod that claims its GPUs through a
    // ResourceClaim requests none. kube-scheduler still counts every
    // resource itself (nothing is ignoredByScheduler): its count includes
    // pods it has assumed but not yet bound, while the extender's cluster
    // cache can be up to EXTENDER_CACHE_TTL old, so two GPU pods placed
    // within that window are never given the same last free GPU.
  };
}
