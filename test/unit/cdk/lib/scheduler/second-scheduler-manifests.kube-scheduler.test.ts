import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { KUBERNETES_VERSIONS } from '../../../../../cdk/app-config/app-config';
import { KUBERNETES_RELEASES, LOCALLY_BUILT_MINOR, locallyBuiltRelease } from '../../../../../cdk/app-config/kubernetes-releases';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import { kubeSchedulerConfiguration } from '../../../../../cdk/lib/scheduler/second-scheduler-manifests';
import { ensureKubeBinaries } from '../../../../../local/builds/kube-binaries';

// The real kube-scheduler (the one the local harness builds) loads the
// configuration we put in the ConfigMap: strict decoding and validation,
// then `--write-config-to` prints it back with defaults and exits. Only the
// locally built version (kubernetes-releases.ts) has a binary here; the
// other versions are named below as not covered by their own scheduler.
let kubeScheduler: string;
const dir = mkdtempSync(join(tmpdir(), 'gpu-kube-scheduler-config-'));
const kubeconfig = join(dir, 'kubeconfig.yaml');

beforeAll(async () => {
  kubeScheduler = (await ensureKubeBinaries()).path['kube-scheduler'];
  // Never contacted: --write-config-to exits before the scheduler starts.
  writeFileSync(
    kubeconfig,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
  );
}, 1_800_000);

function loadWithKubeScheduler(name: string, configuration: Record<string, unknown>): { status: number | null; output: string; written?: Record<string, unknown> } {
  const input = join(dir, `${name}.json`);
  const written = join(dir, `${name}.written.yaml`);
  // clientConnection is the one field the in-cluster deployment leaves to its service account.
  writeFileSync(input, JSON.stringify({ ...configuration, clientConnection: { kubeconfig } }));
  const result = spawnSync(kubeScheduler, [`--config=${input}`, `--write-config-to=${written}`], { encoding: 'utf8', timeout: 60_000 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) return { status: result.status, output };
  return { status: result.status, output, written: parseYaml(readFileSync(written, 'utf8')) as Record<string, unknown> };
}

describe('kube-scheduler accepts the generated KubeSchedulerConfiguration', () => {
  it.each([
    ['defaults', {}, false],
    ['https, ignorable, no preempt', { scheduler: { extender: { ignorable: true, preempt: false, httpTimeoutSeconds: 2, weight: 20 } } }, true],
  ])(`%s (kubernetes ${LOCALLY_BUILT_MINOR}, kube-scheduler ${locallyBuiltRelease()})`, (name, raw, https) => {
    const { scheduler } = parseAppConfig(raw);
    const configuration = kubeSchedulerConfiguration({ scheduler, extenderUrlPrefix: https ? 'https://gpu-extender.internal.example.com:443' : 'http://internal-gpu.elb.amazonaws.com:80' });
    const result = loadWithKubeScheduler(name.replace(/\W+/g, '-'), configuration);
    expect(result.status, result.output).toBe(0);
    type WrittenProfile = { schedulerName: string; plugins?: { score?: { disabled?: { name: string }[] } }; pluginConfig?: { name: string; args?: Record<string, unknown> }[] };
    const written = result.written as { profiles: WrittenProfile[]; extenders: Record<string, unknown>[]; leaderElection: Record<string, unknown> };
    expect(written.profiles.map((profile) => profile.schedulerName)).toEqual(['gpu-scheduler']);
    // The in-tree scores without intent are off in the effective configuration.
    const disabledScores = written.profiles[0]?.plugins?.score?.disabled?.map((plugin) => plugin.name) ?? [];
    expect(disabledScores).toEqual(expect.arrayContaining(['NodeResourcesFit', 'NodeResourcesBalancedAllocation', 'ImageLocality']));
    // PodTopologySpread without system default constraints (kube-scheduler writes an empty list by leaving it out).
    const spread = written.profiles[0]?.pluginConfig?.find((plugin) => plugin.name === 'PodTopologySpread')?.args ?? {};
    expect(spread).toMatchObject({ defaultingType: 'List' });
    expect(spread.defaultConstraints ?? []).toEqual([]);
    expect(written.leaderElection).toMatchObject({ leaderElect: true, resourceName: 'gpu-scheduler', resourceNamespace: 'kube-system' });
    const [expected] = configuration.extenders as Record<string, unknown>[];
    expect(written.extenders).toHaveLength(1);
    const [extender = {}] = written.extenders;
    // kube-scheduler writes false booleans by leaving them out.
    for (const key of ['urlPrefix', 'filterVerb', 'prioritizeVerb', 'preemptVerb', 'weight', 'nodeCacheCapable', 'httpTimeout', 'enableHTTPS', 'ignorable']) {
      expect(extender[key] ?? false, key).toEqual(expected?.[key] ?? false);
    }
    // Neither lists managedResources (kube-scheduler would default none): every pod of the profile is the extender's.
    expect(expected).not.toHaveProperty('managedResources');
    expect(extender.managedResources ?? []).toEqual([]);
  }, 120_000);

  it(`the binary is kube-scheduler ${locallyBuiltRelease()}, the image deployed for kubernetes ${LOCALLY_BUILT_MINOR}`, () => {
    const result = spawnSync(kubeScheduler, ['--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout.trim()).toBe(`Kubernetes ${locallyBuiltRelease()}`);
    expect(parseAppConfig({ kubernetesVersion: LOCALLY_BUILT_MINOR }).scheduler.kubeSchedulerVersion).toBe(KUBERNETES_RELEASES[LOCALLY_BUILT_MINOR]);
  });

  const uncovered = KUBERNETES_VERSIONS.filter((version) => version !== LOCALLY_BUILT_MINOR);
  it.each(uncovered.map((version) => [version, KUBERNETES_RELEASES[version]]))(
    `NOT COVERED by its own binary: kubernetes %s (kube-scheduler v%s); its configuration is the one ${locallyBuiltRelease()} loads above`,
    (version) => {
      // kubescheduler.config.k8s.io/v1 is the same API in every supported version, and nothing
      // in the generated configuration depends on the version; if that changes, this fails.
      for (const extender of [{}, { ignorable: true, preempt: false, httpTimeoutSeconds: 2, weight: 20 }]) {
        const props = (kubernetesVersion: string) => ({
          scheduler: parseAppConfig({ kubernetesVersion, scheduler: { extender } }).scheduler,
          extenderUrlPrefix: 'http://x:80',
        });
        expect(kubeSchedulerConfiguration(props(version))).toEqual(kubeSchedulerConfiguration(props(LOCALLY_BUILT_MINOR)));
      }
    },
  );

  it('rejects a configuration with a field kube-scheduler does not know (the check can fail)', () => {
    const { scheduler } = parseAppConfig({});
    const configuration = kubeSchedulerConfiguration({ scheduler, extenderUrlPrefix: 'http://x:80' });
    const [extender] = configuration.extenders as Record<string, unknown>[];
    const result = loadWithKubeScheduler('unknown-field', { ...configuration, extenders: [{ ...extender, nodeCacheable: true }] });
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('unknown field');
  }, 120_000);
});
