// `npm run preflight` against the local harness's kube-apiserver and moto's
// EKS, as a user runs it (the CLI in a child process, with a kubeconfig and
// AWS settings), with clashes planted: a device plugin of the GPU Operator,
// the CloudWatch add-on's agent, a KubeSchedulerConfiguration that already
// has a gpu-scheduler profile, and a GPU NodePool with a taint the opt-in
// does not tolerate. Nothing planted can run: the DaemonSets select no node,
// the NodePool's limits allow no node.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { CustomObjectsApi, type V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { installKarpenterCrds } from '../../local/addons/karpenter-crds';
import { awsClientConfig, awsEnvironment } from '../../local/aws/moto';
import { e2eHarness } from './support/e2e-context';

const h = e2eHarness();
const REPO = join(import.meta.dirname, '..', '..');
const TSX = join(REPO, 'node_modules', '.bin', 'tsx');
const ENTRY = join(REPO, 'cdk', 'tools', 'preflight-cli.ts');
const CLOUDWATCH_NAMESPACE = 'amazon-cloudwatch';
const NODE_POOL = 'preflight-h100';
const CLUSTER = `preflight-${process.pid}`;
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'];
/** Matches no node: the planted DaemonSets must not put pods on other files' nodes. */
const NO_NODE = { 'preflight.e2e/none': 'true' };

const custom = h.kubeConfig.makeApiClient(CustomObjectsApi);
let dir = '';
let namespace = '';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function preflight(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(TSX, [ENTRY, ...args], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ...awsEnvironment(h.info.motoUrl), NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

function writeConfig(name: string, extra: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      clusterName: CLUSTER,
      kubernetesVersion: '1.36',
      cluster: { mode: 'existing', existing: { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a', 'us-east-1b'], privateSubnetIds: SUBNETS, clusterSecurityGroupId: 'sg-0123456789abcdef0', gpuCapacity: 'karpenter' } },
      ...extra,
    }),
  );
  return file;
}

function daemonSet(name: string, image: string): V1DaemonSet {
  const labels = { app: name };
  return {
    metadata: { name, labels },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { nodeSelector: NO_NODE, containers: [{ name: 'main', image }] } } },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'preflight-e2e-'));
  namespace = await h.createNamespace('preflight');
  await h.apps.createNamespacedDaemonSet({ namespace, body: daemonSet('nvidia-device-plugin-daemonset', 'nvcr.io/nvidia/k8s-device-plugin:v0.17.1') });
  await h.core.createNamespace({ body: { metadata: { name: CLOUDWATCH_NAMESPACE } } });
  await h.apps.createNamespacedDaemonSet({ namespace: CLOUDWATCH_NAMESPACE, body: daemonSet('cloudwatch-agent', 'public.ecr.aws/cloudwatch-agent/cloudwatch-agent:1.300050.0b1012') });
  await h.core.createNamespacedConfigMap({
    namespace,
    body: {
      metadata: { name: 'other-scheduler-config' },
      data: { 'config.yaml': stringify({ apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'KubeSchedulerConfiguration', profiles: [{ schedulerName: 'gpu-scheduler' }] }) },
    },
  });
  await installKarpenterCrds(h.kubeConfig, h.info.karpenter);
  await custom.createClusterCustomObject({
    group: 'karpenter.sh',
    version: 'v1',
    plural: 'nodepools',
    body: {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: NODE_POOL },
      spec: {
        template: {
          spec: {
            nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
            requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['p5'] }],
            taints: [{ key: 'example.com/pool', value: 'h100', effect: 'NoSchedule' }],
          },
        },
        limits: { cpu: '0', 'nvidia.com/gpu': '0' },
      },
    },
  });
  // What the EKS API says of the cluster the config names (moto reports no authentication mode).
  const eks = new EKSClient(awsClientConfig(h.info.motoUrl));
  await eks.send(new CreateClusterCommand({ name: CLUSTER, version: '1.36', roleArn: 'arn:aws:iam::123456789012:role/eks', resourcesVpcConfig: { subnetIds: SUBNETS } }));
  eks.destroy();
}, 120_000);

afterAll(async () => {
  await custom.deleteClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: NODE_POOL }).catch(() => undefined);
  await h.core.deleteNamespace({ name: CLOUDWATCH_NAMESPACE }).catch(() => undefined);
  if (namespace) await h.core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubeconfigArgs = (): string[] => ['--kubeconfig', h.info.controlPlane.adminKubeconfig, '--region', 'us-east-1'];

describe('npm run preflight on a cluster with clashes', () => {
  it('with the defaults: a blocker for each clash, with the key that resolves it, and exit 1', async () => {
    const run = await preflight(['--config', writeConfig('defaults.yaml', {}), ...kubeconfigArgs()]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const out = run.stdout;
    expect(out).toContain(`Preflight of ${CLUSTER} (existing cluster, GPU capacity karpenter)`);
    expect(out).toMatch(new RegExp(`BLOCKER +device plugin +DaemonSet ${namespace}/nvidia-device-plugin-daemonset already advertise nvidia.com/gpu.*\\n +→ addons.nvidiaDevicePlugin.enabled: false`));
    expect(out).toMatch(/BLOCKER +CloudWatch add-on +.*DaemonSet amazon-cloudwatch\/cloudwatch-agent.*CloudFormation cannot adopt.*\n +→ addons.cloudWatchObservability.enabled: false/);
    expect(out).toMatch(new RegExp(`BLOCKER +scheduler name +another scheduler uses the name gpu-scheduler: a KubeSchedulerConfiguration with profile gpu-scheduler \\(ConfigMap ${namespace}/other-scheduler-config\\)`));
    expect(out).toMatch(new RegExp(`WARNING +GPU NodePools +NodePool ${NODE_POOL} .*opted-in pods get no toleration of example.com/pool:NoSchedule.*\\n +→ admission.gpuTaints: add \\{key: example.com/pool, effect: NO_SCHEDULE\\}`));
    expect(out).toMatch(new RegExp(`WARNING +GPU NodePools +NodePool ${NODE_POOL} does not require NVIDIA GPUs`));
    // EKS was asked: it knows the cluster, but moto reports no authentication mode.
    expect(out).toMatch(/WARNING +EKS access entries +EKS did not report the authentication mode/);
    expect(out).toMatch(/ok +Kubernetes version +v1\.36\.\d+, as configured/);
    // The pods it counts are the whole cluster's: an earlier file's may still be terminating on this harness.
    expect(out).toMatch(/info +monthly cost +about \$[\d,.]+ a month at \d+ GPU nodes and \d+ opted-in pods/);
    expect(out).toMatch(/\n(\d+) blocker\(s\), \d+ warning\(s\): resolve the blockers before cdk deploy\.\n$/);
  }, 180_000);

  it('with the keys it named set: no blocker, exit 0', async () => {
    const resolved = writeConfig('resolved.yaml', {
      addons: { nvidiaDevicePlugin: { enabled: false }, cloudWatchObservability: { enabled: false } },
      admission: { gpuTaints: [{ key: 'nvidia.com/gpu' }, { key: 'example.com/pool' }] },
      scheduler: { name: `gpu-scheduler-${process.pid}` },
    });
    const run = await preflight(['--config', resolved, ...kubeconfigArgs()]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('BLOCKER');
    expect(run.stdout).toMatch(/ok +device plugin +DaemonSet .*nvidia-device-plugin-daemonset advertise nvidia.com\/gpu; the stack installs none/);
    expect(run.stdout).not.toMatch(new RegExp(`toleration of example.com/pool`));
  }, 180_000);

  it('an unreachable cluster is one line on stderr and exit 3, no stack trace', async () => {
    const dead = join(dir, 'dead-kubeconfig.yaml');
    writeFileSync(
      dead,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'gone', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'x' } }],
        contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'u' } }],
        'current-context': 'gone',
      }),
    );
    const run = await preflight(['--config', writeConfig('any.yaml', {}), '--kubeconfig', dead, '--no-aws']);
    expect(run.code).toBe(3);
    const lines = run.stderr.split('\n').filter((line) => line !== '' && !/NodeVersionSupportWarning|AWS SDK|node >=22|a\.co\/|--trace-warnings|^\s*$|upgrade to node|receiving updates|will require|versions published|You are running/.test(line));
    expect(lines).toEqual([expect.stringMatching(/^error: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:1 \(context gone\): .*ECONNREFUSED/)]);
    expect(run.stdout).toBe('');
  }, 180_000);
});
