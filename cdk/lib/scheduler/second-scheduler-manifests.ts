import { createHash } from 'node:crypto';
import type { SchedulerConfig } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { extenderConfiguration, type ExtenderTlsFiles, type KubeSchedulerExtender } from './extender-configuration';

export interface SecondSchedulerManifestProps {
  readonly scheduler: SchedulerConfig;
  /** `http(s)://host:port` of the extender ALB; may contain CDK tokens after the scheme. */
  readonly extenderUrlPrefix: string;
  /** Node labels that pin the scheduler to the system nodes, when the stack knows them (a new cluster); `scheduler.nodeSelector` wins. */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /** Mutual TLS: the Secret (`tls.crt`, `tls.key`, `ca.crt`) the scheduler's extender tlsConfig reads. */
  readonly extenderTlsSecret?: string;
  /**
   * HTTPS without mutual TLS (your own certificate): the CA bundle (PEM) that
   * signed it, put in a ConfigMap for the scheduler's caFile; without it, the
   * image's system roots (a public ACM certificate chains to them).
   */
  readonly extenderCaBundle?: string;
  /**
   * The load balancer's DNS name (a deploy-time token): on the pod template,
   * so a new ALB rolls the pods after the ConfigMap that names it changed.
   */
  readonly extenderEndpoint?: string;
}

const CONFIG_DIR = '/etc/kubernetes/gpu-scheduler';
const CONFIG_FILE = 'scheduler-config.json';
const TLS_DIR = '/etc/kubernetes/gpu-scheduler-extender-tls';
/** Where the scheduler reads its client certificate, key and the CAs of the extender's server certificate. */
export const EXTENDER_TLS_FILES: ExtenderTlsFiles = { certFile: `${TLS_DIR}/tls.crt`, keyFile: `${TLS_DIR}/tls.key`, caFile: `${TLS_DIR}/ca.crt` };
const CA_DIR = '/etc/kubernetes/gpu-scheduler-extender-ca';
/**
 * The system roots of the kube-scheduler image (distroless, with Debian's
 * ca-certificates bundle). Without a caFile kube-scheduler would not verify an
 * HTTPS extender at all (`makeTransport` in pkg/scheduler/extender.go turns
 * `insecure` on when no CA is given).
 */
export const SYSTEM_ROOTS_FILE = '/etc/ssl/certs/ca-certificates.crt';
/** The pod template annotations that roll the pods: a setting changed, or a new load balancer. */
export const CONFIG_CHECKSUM_ANNOTATION = 'gpu-scheduling/config-sha256';
export const EXTENDER_URL_ANNOTATION = 'gpu-scheduling/extender-url';
export const EXTENDER_ENDPOINT_ANNOTATION = 'gpu-scheduling/extender-endpoint';
/** kube-scheduler's secure port; /healthz is served there without authentication. */
export const SECURE_PORT = 10259;
/** The name of that port on the container: what a PodMonitor selects (kube-prometheus names kube-scheduler's port so). */
export const SECURE_PORT_NAME = 'https-metrics';

/**
 * Paths kube-scheduler serves without asking the API server to authorize the
 * caller: its default health paths, plus /metrics so the reconciler can read
 * them through the API server's pod proxy, which connects without our
 * credentials (docs/reconciler.md, "The second scheduler's metrics"). What is
 * exposed: counts and latencies, no pod names; reachable only on the pod IP.
 */
export const ALWAYS_ALLOW_PATHS = ['/healthz', '/readyz', '/livez', '/metrics'] as const;

/**
 * The gpu-scheduler profile leaves on only the in-tree scores that carry
 * intent — the pod's own preferred node affinity, preferred inter-pod
 * affinity and topology spread constraints, and PreferNoSchedule taints —
 * so that, where a pod states none, the extender's ranking alone decides.
 * Off (scores only; every filter stays on):
 * - NodeResourcesFit's LeastAllocated and NodeResourcesBalancedAllocation
 *   spread pods, against the extender's packing and fragmentation scores.
 * - ImageLocality is a heuristic worth up to 100 points: a multi-GB CUDA
 *   image cached on a quarter of the nodes maxes it, which would outweigh up
 *   to four levels of the extender's ranking (20 points each at weight 2) on
 *   EKS, while the local harness, whose nodes report no images, would never
 *   show it. A pull is paid once per node; a stranded GPU for as long as the
 *   pod runs.
 */
export const GPU_PROFILE_PLUGINS = {
  score: { disabled: [{ name: 'NodeResourcesFit' }, { name: 'NodeResourcesBalancedAllocation' }, { name: 'ImageLocality' }] },
} as const;

/**
 * PodTopologySpread without kube-scheduler's system default constraints
 * (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway, for every pod a
 * Service, ReplicaSet or StatefulSet selects): they would spread the replicas
 * of every GPU Deployment against packing without the user having asked — by
 * 100 points towards an empty node in another zone once two replicas share a
 * node, nearing 200 as more do, beyond the extender's whole range at weight 2
 * (180). `List` with no constraints keeps the pod's own
 * topologySpreadConstraints, which are then the only spreading that counts.
 */
export const GPU_PROFILE_PLUGIN_CONFIG = [
  {
    name: 'PodTopologySpread',
    args: { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'PodTopologySpreadArgs', defaultingType: 'List', defaultConstraints: [] },
  },
] as const;

/**
 * The gpu-scheduler profile, shared by the deployed second scheduler and the
 * local harness so that e2e placements are the deployed ones. How its scores
 * add up with the extender's: docs/extender.md, "How our score adds to
 * kube-scheduler's".
 */
export function gpuSchedulerProfile(schedulerName: string): KubernetesObject {
  return { schedulerName, plugins: GPU_PROFILE_PLUGINS, pluginConfig: GPU_PROFILE_PLUGIN_CONFIG };
}

/**
 * KubeSchedulerConfiguration for the second scheduler: one profile, one
 * extender. JSON (which kube-scheduler reads like YAML) so that CDK tokens in
 * the URL survive rendering into the ConfigMap.
 */
export function kubeSchedulerConfiguration(props: SecondSchedulerManifestProps): KubernetesObject {
  const { scheduler } = props;
  return {
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    leaderElection: {
      leaderElect: true,
      // Its own lease, so it never contends with the default scheduler's.
      resourceLock: 'leases',
      resourceName: scheduler.leaseName,
      resourceNamespace: scheduler.namespace,
    },
    profiles: [gpuSchedulerProfile(scheduler.name)],
    extenders: [
      extenderConfiguration({
        ...scheduler.extender,
        urlPrefix: props.extenderUrlPrefix,
        ...tlsConfigOf(props),
      }),
    ],
  };
}

/** The scheduler's tlsConfig: its client certificate with mutual TLS; otherwise, over HTTPS, the CAs that verify the ALB's certificate. */
function tlsConfigOf(props: SecondSchedulerManifestProps): { tlsConfig?: ExtenderTlsFiles | { readonly caFile: string } } {
  if (props.extenderTlsSecret !== undefined) return { tlsConfig: EXTENDER_TLS_FILES };
  if (!props.extenderUrlPrefix.startsWith('https://')) return {};
  return { tlsConfig: { caFile: props.extenderCaBundle === undefined ? SYSTEM_ROOTS_FILE : `${CA_DIR}/ca.crt` } };
}

/**
 * Everything the second scheduler needs in the cluster: ServiceAccount, RBAC
 * equal to the default scheduler's (system:kube-scheduler and
 * system:volume-scheduler) plus its own lease, the configuration, a
 * Deployment and a PodDisruptionBudget.
 */
export function secondSchedulerManifests(props: SecondSchedulerManifestProps): KubernetesObject[] {
  const { scheduler } = props;
  const { name, namespace } = scheduler;
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': 'scheduler', 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  const selector = { 'app.kubernetes.io/name': name };
  const subject = [{ kind: 'ServiceAccount', name, namespace }];
  const configuration = kubeSchedulerConfiguration(props);
  const configJson = JSON.stringify(configuration, null, 2);
  // Rolls the pods when settings change; the URL is left out because it is a
  // deploy-time token whose placeholder text differs between synths (its
  // scheme stays, as enableHTTPS). The URL and the ALB's DNS name go on the
  // pod template as they are (resolved at deploy time), so a new ALB rolls
  // the pods too; kubectl applies the ConfigMap before the Deployment.
  const withoutUrl = { ...configuration, extenders: (configuration.extenders as KubeSchedulerExtender[]).map((extender) => ({ ...extender, urlPrefix: '' })) };
  const caConfigMap = props.extenderTlsSecret === undefined && props.extenderCaBundle !== undefined && props.extenderUrlPrefix.startsWith('https://') ? `${name}-extender-ca` : undefined;
  const configChecksum = createHash('sha256')
    .update(JSON.stringify(withoutUrl))
    .update(props.extenderCaBundle ?? '')
    .digest('hex');
  const nodeSelector = scheduler.nodeSelector ?? props.nodeSelector;

  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels } },
    clusterRoleBinding(`${name}-as-kube-scheduler`, 'system:kube-scheduler', subject, labels),
    clusterRoleBinding(`${name}-as-volume-scheduler`, 'system:volume-scheduler', subject, labels),
    {
      // Lets the scheduler read the client-CA config for delegated authentication.
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-extension-apiserver-authentication-reader`, namespace: 'kube-system', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      subjects: subject,
    },
    {
      // system:kube-scheduler only lets a scheduler update the lease named
      // kube-scheduler; this one holds its own.
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: `${name}-leader-election`, namespace, labels },
      rules: [
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [scheduler.leaseName], verbs: ['get', 'update', 'patch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-leader-election`, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-leader-election` },
      subjects: subject,
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-config`, namespace, labels },
      data: { [CONFIG_FILE]: configJson },
    },
    ...(caConfigMap === undefined ? [] : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: caConfigMap, namespace, labels }, data: { 'ca.crt': props.extenderCaBundle } }]),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: scheduler.replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: {
            labels,
            annotations: {
              [CONFIG_CHECKSUM_ANNOTATION]: configChecksum,
              [EXTENDER_URL_ANNOTATION]: props.extenderUrlPrefix,
              ...(props.extenderEndpoint === undefined ? {} : { [EXTENDER_ENDPOINT_ANNOTATION]: props.extenderEndpoint }),
            },
          },
          spec: {
            serviceAccountName: name,
            priorityClassName: scheduler.priorityClassName,
            // Never on a GPU node: Karpenter could then not consolidate it away, and a GPU would pay for a scheduler.
            ...(nodeSelector === undefined ? {} : { nodeSelector: { ...nodeSelector } }),
            ...(scheduler.tolerations.length === 0 ? {} : { tolerations: scheduler.tolerations.map((toleration) => ({ ...toleration })) }),
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 65532,
              runAsGroup: 65532,
              // The TLS Secret's files belong to root; this group lets the scheduler's user read them (mode 0440).
              ...(props.extenderTlsSecret === undefined ? {} : { fsGroup: 65532 }),
              seccompProfile: { type: 'RuntimeDefault' },
            },
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: selector }, topologyKey: 'kubernetes.io/hostname' } },
                ],
              },
            },
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } },
            ],
            containers: [
              {
                name: 'kube-scheduler',
                image: scheduler.image,
                command: [
                  '/usr/local/bin/kube-scheduler',
                  `--config=${CONFIG_DIR}/${CONFIG_FILE}`,
                  `--authorization-always-allow-paths=${ALWAYS_ALLOW_PATHS.join(',')}`,
                  `--v=${scheduler.verbosity}`,
                ],
                ports: [{ name: SECURE_PORT_NAME, containerPort: SECURE_PORT, protocol: 'TCP' }],
                livenessProbe: healthProbe(15),
                readinessProbe: healthProbe(0),
                resources: {
                  requests: { cpu: scheduler.resources.cpuRequest, memory: scheduler.resources.memoryRequest },
                  limits: { memory: scheduler.resources.memoryLimit },
                },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ['ALL'] },
                },
                volumeMounts: [
                  { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
                  ...(props.extenderTlsSecret === undefined ? [] : [{ name: 'extender-tls', mountPath: TLS_DIR, readOnly: true }]),
                  ...(caConfigMap === undefined ? [] : [{ name: 'extender-ca', mountPath: CA_DIR, readOnly: true }]),
                ],
              },
            ],
            volumes: [
              { name: 'config', configMap: { name: `${name}-config` } },
              // Readable by the scheduler's group only; the rotation Lambda rewrites it and rolls the pods.
              ...(props.extenderTlsSecret === undefined ? [] : [{ name: 'extender-tls', secret: { secretName: props.extenderTlsSecret, defaultMode: 0o440 } }]),
              ...(caConfigMap === undefined ? [] : [{ name: 'extender-ca', configMap: { name: caConfigMap } }]),
            ],
          },
        },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, namespace, labels },
      spec: { ...(scheduler.replicas > 1 ? { minAvailable: 1 } : { maxUnavailable: 1 }), selector: { matchLabels: selector } },
    },
  ];
}

function clusterRoleBinding(name: string, clusterRole: string, subjects: KubernetesObject[], labels: Record<string, string>): KubernetesObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects,
  };
}

function healthProbe(initialDelaySeconds: number): KubernetesObject {
  return {
    httpGet: { path: '/healthz', port: SECURE_PORT, scheme: 'HTTPS' },
    initialDelaySeconds,
    periodSeconds: 10,
    failureThreshold: 3,
  };
}
