import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import {
  CONFIG_CHECKSUM_ANNOTATION,
  EXTENDER_ENDPOINT_ANNOTATION,
  EXTENDER_URL_ANNOTATION,
  kubeSchedulerConfiguration,
  secondSchedulerManifests,
  SYSTEM_ROOTS_FILE,
} from '../../../../../cdk/lib/scheduler/second-scheduler-manifests';
import { MAX_EXTENDER_PRIORITY } from '../../../../../lambdas/extender/wire-types';
import { findObject } from '../../support/synthesize';

const scheduler = parseAppConfig({ scheduler: { leaseName: 'gpu-scheduler-lease', extender: { weight: 7 } } }).scheduler;
const props = { scheduler, extenderUrlPrefix: 'http://internal-alb.example:80' };
const objects = secondSchedulerManifests(props);

describe('KubeSchedulerConfiguration', () => {
  it('has one profile named after the scheduler and leader election on its own lease', () => {
    expect(kubeSchedulerConfiguration(props)).toMatchObject({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      profiles: [{ schedulerName: 'gpu-scheduler' }],
      leaderElection: { leaderElect: true, resourceName: 'gpu-scheduler-lease', resourceNamespace: 'kube-system', resourceLock: 'leases' },
    });
  });

  it('keeps only the in-tree scores that carry intent, and no default spreading', () => {
    const [profile] = kubeSchedulerConfiguration(props).profiles as Record<string, unknown>[];
    expect(profile).toEqual({
      schedulerName: 'gpu-scheduler',
      plugins: { score: { disabled: [{ name: 'NodeResourcesFit' }, { name: 'NodeResourcesBalancedAllocation' }, { name: 'ImageLocality' }] } },
      pluginConfig: [
        {
          name: 'PodTopologySpread',
          args: { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'PodTopologySpreadArgs', defaultingType: 'List', defaultConstraints: [] },
        },
      ],
    });
  });

  it('defaults to an extender weight whose whole range stays below a pod\'s own full preference', () => {
    // kube-scheduler adds extender score × weight × (MaxNodeScore 100 / MaxExtenderPriority 10);
    // feasible nodes get 1..10 from toExtenderScores, so they differ by at most 9 levels.
    const { weight } = parseAppConfig({}).scheduler.extender;
    const extenderRange = (MAX_EXTENDER_PRIORITY - 1) * weight * (100 / MAX_EXTENDER_PRIORITY);
    // NodeAffinity, InterPodAffinity and PodTopologySpread: weight 2 × MaxNodeScore 100 (v1.36 default_plugins.go).
    const fullPreference = 2 * 100;
    expect(extenderRange).toBe(180);
    expect(extenderRange).toBeLessThan(fullPreference);
    const [extender] = kubeSchedulerConfiguration({ ...props, scheduler: parseAppConfig({}).scheduler }).extenders as Record<string, unknown>[];
    expect(extender?.weight).toBe(2);
  });

  it('leaves the preempt verb out when preemption support is switched off', () => {
    const withoutPreempt = kubeSchedulerConfiguration({ ...props, scheduler: { ...scheduler, extender: { ...scheduler.extender, preempt: false } } });
    const [extender] = withoutPreempt.extenders as Record<string, unknown>[];
    expect(extender).not.toHaveProperty('preemptVerb');
    expect(extender).toMatchObject({ filterVerb: 'filter', prioritizeVerb: 'prioritize', weight: 7 });
  });

  it('verifies an HTTPS extender without mutual TLS: the image\'s system roots, or the CAs configured for its certificate', () => {
    const https = { ...props, extenderUrlPrefix: 'https://gpu-extender.example.com:443' };
    const [systemRoots] = kubeSchedulerConfiguration(https).extenders as Record<string, unknown>[];
    // Without a caFile kube-scheduler's extender transport skips verification (pkg/scheduler/extender.go, makeTransport).
    expect(systemRoots?.tlsConfig).toEqual({ caFile: SYSTEM_ROOTS_FILE });
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const own = { ...https, extenderCaBundle: ca };
    const [withCa] = kubeSchedulerConfiguration(own).extenders as Record<string, unknown>[];
    expect(withCa?.tlsConfig).toEqual({ caFile: '/etc/kubernetes/gpu-scheduler-extender-ca/ca.crt' });
    expect(findObject(secondSchedulerManifests(own), 'ConfigMap', 'gpu-scheduler-extender-ca')).toMatchObject({ data: { 'ca.crt': ca } });
    const [plain] = kubeSchedulerConfiguration(props).extenders as Record<string, unknown>[];
    expect(plain).not.toHaveProperty('tlsConfig');
  });

  it('is what the ConfigMap carries, as JSON', () => {
    const configMap = findObject(objects, 'ConfigMap', 'gpu-scheduler-config') as { data: Record<string, string> };
    expect(JSON.parse(configMap.data['scheduler-config.json'] ?? '')).toEqual(kubeSchedulerConfiguration(props));
  });
});

describe('second scheduler objects', () => {
  it('is pinned to the given node labels, and unpinned without them', () => {
    const podSpec = (manifests: Record<string, unknown>[]): Record<string, unknown> =>
      (findObject(manifests, 'Deployment', scheduler.name) as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
    expect(podSpec(secondSchedulerManifests({ ...props, nodeSelector: { 'gpu-scheduling/node-group': 'system' } })).nodeSelector).toEqual({ 'gpu-scheduling/node-group': 'system' });
    expect(podSpec(objects)).not.toHaveProperty('nodeSelector');
  });

  it('binds the service account to the default scheduler roles and reads the authentication config', () => {
    for (const [name, role] of [
      ['gpu-scheduler-as-kube-scheduler', 'system:kube-scheduler'],
      ['gpu-scheduler-as-volume-scheduler', 'system:volume-scheduler'],
    ] as const) {
      expect(findObject(objects, 'ClusterRoleBinding', name)).toMatchObject({
        roleRef: { kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'gpu-scheduler', namespace: 'kube-system' }],
      });
    }
    expect(findObject(objects, 'RoleBinding', 'gpu-scheduler-extension-apiserver-authentication-reader')).toMatchObject({
      metadata: { namespace: 'kube-system' },
      roleRef: { kind: 'Role', name: 'extension-apiserver-authentication-reader' },
    });
  });

  it('may update only its own lease', () => {
    const role = findObject(objects, 'Role', 'gpu-scheduler-leader-election') as { rules: { resourceNames?: string[]; verbs: string[] }[] };
    expect(role.rules).toContainEqual(expect.objectContaining({ resourceNames: ['gpu-scheduler-lease'], verbs: ['get', 'update', 'patch'] }));
    for (const rule of role.rules) if (rule.resourceNames === undefined) expect(rule.verbs).toEqual(['create']);
  });

  it('runs hardened, with resources, health probes and the config mounted', () => {
    const deployment = findObject(objects, 'Deployment', 'gpu-scheduler') as {
      spec: { template: { metadata: { annotations: Record<string, string> }; spec: { serviceAccountName: string; containers: Record<string, unknown>[] } } };
    };
    const [container] = deployment.spec.template.spec.containers;
    expect(deployment.spec.template.spec.serviceAccountName).toBe('gpu-scheduler');
    expect(container).toMatchObject({
      image: 'registry.k8s.io/kube-scheduler:v1.36.3',
      command: [
        '/usr/local/bin/kube-scheduler',
        '--config=/etc/kubernetes/gpu-scheduler/scheduler-config.json',
        // Health paths and /metrics, which the reconciler reads through the API server's pod proxy.
        '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
        '--v=2',
      ],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
      securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
      livenessProbe: { httpGet: { path: '/healthz', port: 10259, scheme: 'HTTPS' } },
    });
    expect(deployment.spec.template.metadata.annotations['gpu-scheduling/config-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rolls the pods when a setting changes or the load balancer is replaced (its URL and DNS name are on the pod template)', () => {
    const template = (p: Parameters<typeof secondSchedulerManifests>[0]) =>
      (findObject(secondSchedulerManifests(p), 'Deployment', 'gpu-scheduler') as { spec: { template: { metadata: { annotations: Record<string, string> } } } }).spec.template;
    const withEndpoint = { ...props, extenderEndpoint: 'internal-alb.example' };
    const replaced = { ...props, extenderUrlPrefix: 'http://internal-alb-2.example:80', extenderEndpoint: 'internal-alb-2.example' };
    // The settings' checksum leaves the deploy-time URL out (its placeholder differs between synths)...
    expect(template(replaced).metadata.annotations[CONFIG_CHECKSUM_ANNOTATION]).toBe(template(withEndpoint).metadata.annotations[CONFIG_CHECKSUM_ANNOTATION]);
    expect(template({ ...props, scheduler: { ...scheduler, extender: { ...scheduler.extender, weight: 8 } } }).metadata.annotations[CONFIG_CHECKSUM_ANNOTATION]).not.toBe(
      template(props).metadata.annotations[CONFIG_CHECKSUM_ANNOTATION],
    );
    // ...and the pod template carries the URL and the DNS name themselves, resolved at deploy time: a new ALB is a new template.
    expect(template(withEndpoint).metadata.annotations).toMatchObject({ [EXTENDER_URL_ANNOTATION]: 'http://internal-alb.example:80', [EXTENDER_ENDPOINT_ANNOTATION]: 'internal-alb.example' });
    expect(template(replaced)).not.toEqual(template(withEndpoint));
    expect(template(replaced).metadata.annotations).toMatchObject({ [EXTENDER_URL_ANNOTATION]: 'http://internal-alb-2.example:80', [EXTENDER_ENDPOINT_ANNOTATION]: 'internal-alb-2.example' });
  });

  it('runs the image named by scheduler.image, pinned by digest if so; a tag must be of kubernetesVersion', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const pinned = parseAppConfig({ scheduler: { image: `registry.k8s.io/kube-scheduler:v1.36.3@${digest}` } }).scheduler;
    const mirror = parseAppConfig({ scheduler: { image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror/kube-scheduler@${digest}` } }).scheduler;
    const imageOf = (config: typeof scheduler): string | undefined =>
      (findObject(secondSchedulerManifests({ ...props, scheduler: config }), 'Deployment', 'gpu-scheduler') as { spec: { template: { spec: { containers: { image?: string }[] } } } }).spec.template.spec.containers[0]?.image;
    expect(imageOf(pinned)).toBe(`registry.k8s.io/kube-scheduler:v1.36.3@${digest}`);
    expect(imageOf(mirror)).toBe(`123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror/kube-scheduler@${digest}`);
    expect(() => parseAppConfig({ scheduler: { image: 'registry.k8s.io/kube-scheduler:v1.35.2' } })).toThrow(/scheduler\.image: must name a 1\.36\.x kube-scheduler/);
    expect(() => parseAppConfig({ scheduler: { image: 'registry.k8s.io/kube-scheduler@sha256:abc' } })).toThrow(/scheduler\.image/);
  });

  it('keeps one replica up during voluntary disruptions', () => {
    expect(findObject(objects, 'PodDisruptionBudget', 'gpu-scheduler')).toMatchObject({
      spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'gpu-scheduler' } } },
    });
  });
});

describe('where the scheduler runs and what it runs (scheduler.nodeSelector, tolerations, priorityClassName, image)', () => {
  type PodTemplate = { spec: { template: { spec: { nodeSelector?: Record<string, string>; tolerations?: unknown[]; priorityClassName: string; containers: { image: string }[] } } } };
  const podSpec = (raw: unknown, systemNodeSelector?: Record<string, string>) => {
    const configured = parseAppConfig({ scheduler: raw }).scheduler;
    const manifests = secondSchedulerManifests({ scheduler: configured, extenderUrlPrefix: 'http://x:80', ...(systemNodeSelector === undefined ? {} : { nodeSelector: systemNodeSelector }) });
    return (findObject(manifests, 'Deployment', configured.name) as PodTemplate).spec.template.spec;
  };
  const DIGEST = `sha256:${'a1'.repeat(32)}`;

  it('defaults: the system nodes when the stack knows them, no tolerations, system-cluster-critical, upstream kube-scheduler of the release', () => {
    const spec = podSpec({}, { 'gpu-scheduling/node-group': 'system' });
    expect(spec.nodeSelector).toEqual({ 'gpu-scheduling/node-group': 'system' });
    expect(spec).not.toHaveProperty('tolerations');
    expect(spec.priorityClassName).toBe('system-cluster-critical');
    expect(spec.containers[0]?.image).toBe('registry.k8s.io/kube-scheduler:v1.36.3');
  });

  it('the configured values reach the Deployment, the node selector in place of the system one', () => {
    const spec = podSpec(
      {
        nodeSelector: { 'eks.amazonaws.com/nodegroup': 'platform' },
        tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'dedicated', value: 'platform', effect: 'NoSchedule' }],
        priorityClassName: 'platform-critical',
        image: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/registry-k8s-io/kube-scheduler:v1.36.3@${DIGEST}`,
      },
      { 'gpu-scheduling/node-group': 'system' },
    );
    expect(spec.nodeSelector).toEqual({ 'eks.amazonaws.com/nodegroup': 'platform' });
    expect(spec.tolerations).toEqual([
      { key: 'CriticalAddonsOnly', operator: 'Exists' },
      { key: 'dedicated', operator: 'Equal', value: 'platform', effect: 'NoSchedule' },
    ]);
    expect(spec.priorityClassName).toBe('platform-critical');
    expect(spec.containers[0]?.image).toBe(`123456789012.dkr.ecr.eu-west-1.amazonaws.com/registry-k8s-io/kube-scheduler:v1.36.3@${DIGEST}`);
  });

  it('accepts a digest alone, a mirror with a port; refuses an image without tag or digest and a malformed digest', () => {
    expect(podSpec({ image: `registry.example.com:5000/k8s/kube-scheduler@${DIGEST}` }).containers[0]?.image).toBe(`registry.example.com:5000/k8s/kube-scheduler@${DIGEST}`);
    expect(() => parseAppConfig({ scheduler: { image: 'registry.example.com/kube-scheduler' } })).toThrow(/scheduler\.image: must name a tag or a digest/);
    expect(() => parseAppConfig({ scheduler: { image: 'kube-scheduler@sha256:abc' } })).toThrow(/scheduler\.image: must be an image reference/);
  });

  it('refuses a toleration of the GPU taint or of every taint: a scheduler pod would hold a GPU node', () => {
    expect(() => parseAppConfig({ scheduler: { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }] } })).toThrow(/scheduler\.tolerations\[0\]: must not tolerate the GPU taint nvidia\.com\/gpu/);
    expect(() => parseAppConfig({ scheduler: { tolerations: [{ operator: 'Exists' }] } })).toThrow(/scheduler\.tolerations\[0\]: must not tolerate every taint/);
    expect(() => parseAppConfig({ scheduler: { tolerations: [{ key: 'a', operator: 'Exists', value: 'x' }] } })).toThrow(/scheduler\.tolerations\[0\]\.value: must be left out/);
  });
});
