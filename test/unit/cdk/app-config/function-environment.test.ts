import { describe, expect, it } from 'vitest';
import { STACK_SET_VARIABLES, functionEnvironment, type ClusterEndpoint } from '../../../../cdk/app-config/function-environment';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import type { PipelineFunctionName } from '../../../../cdk/lib/functions/lambda-entries';
import type { Env } from '../../../../lambdas/env';
import { extenderConfigFromEnv } from '../../../../lambdas/extender/config';
import { kubeConnectionFromEnvironment } from '../../../../lambdas/kube/kube-connection';
import { labelerConfigFromEnv } from '../../../../lambdas/labeler/config';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';
import { schedulerMetricsConfigFromEnv } from '../../../../lambdas/reconciler/scheduler-metrics-config';

// The writer (the config → each function's environment) against the readers
// (each Lambda's own config functions): what is written is read, and reads
// back as the config says.

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const CLUSTER: ClusterEndpoint = { endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: Buffer.from(CA_PEM).toString('base64') };

const config = parseAppConfig({
  clusterName: 'team-gpu',
  scheduler: { name: 'team-scheduler', namespace: 'gpu-system' },
  reconciler: { scheduleMinutes: 3, environment: { POD_NAMESPACES: 'serving, batch' } },
  labeler: { environment: { LABEL_GFD_COMPAT: 'true' } },
  extender: { memorySizeMiB: 1024, capacityBlockDrainMarginMinutes: 50 },
});

/** The variables a reader asked for. */
function readsOf(env: Readonly<Record<string, string>>, read: (env: Env) => unknown): Set<string> {
  const asked = new Set<string>();
  const recording = new Proxy(env, {
    get: (target, name) => {
      if (typeof name === 'string') asked.add(name);
      return target[name as string];
    },
  });
  read(recording);
  return asked;
}

/** What each Lambda reads its environment with at start (the connection's reader is asynchronous: it asks synchronously first). */
const READERS: Readonly<Record<PipelineFunctionName, (env: Env) => unknown>> = {
  extender: (env) => {
    extenderConfigFromEnv(env);
    void kubeConnectionFromEnvironment({ ...env, AWS_REGION: 'eu-west-1' });
  },
  labeler: labelerConfigFromEnv,
  reconciler: (env) => [reconcilerConfigFromEnv(env), schedulerMetricsConfigFromEnv(env)],
};

function stackSet(name: PipelineFunctionName, env: Readonly<Record<string, string>>): string[] {
  return Object.keys(env).filter((variable) => STACK_SET_VARIABLES.some((listed) => listed.name === variable && listed.functions.includes(name)));
}

describe('functionEnvironment', () => {
  it('puts the config\'s environment map under what the stack sets, and lists every variable it sets', () => {
    const extender = functionEnvironment(config, 'extender', CLUSTER);
    expect(extender).toEqual({
      CLUSTER_ENDPOINT: CLUSTER.endpoint,
      CLUSTER_CA_DATA: CLUSTER.caData,
      EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: '50m',
      CLUSTER_NAME: 'team-gpu',
      NODE_OPTIONS: '--max-semi-space-size=32',
    });
    expect(functionEnvironment(config, 'labeler')).toEqual({ LABEL_GFD_COMPAT: 'true', CLUSTER_NAME: 'team-gpu', NODE_OPTIONS: '--enable-source-maps' });
    const reconciler = functionEnvironment(config, 'reconciler');
    expect(reconciler).toEqual({
      POD_NAMESPACES: 'serving, batch',
      SCHEDULER_NAMESPACE: 'gpu-system',
      GPU_SCHEDULER_NAME: 'team-scheduler',
      RUN_INTERVAL: '3m',
      CLUSTER_NAME: 'team-gpu',
      NODE_OPTIONS: '--enable-source-maps',
    });
    for (const name of ['extender', 'labeler', 'reconciler'] as const) {
      const env = functionEnvironment(config, name, CLUSTER);
      const fromConfig = Object.keys(config[name].environment);
      expect(Object.keys(env).filter((variable) => !fromConfig.includes(variable)).sort()).toEqual(stackSet(name, env).sort());
    }
  });

  it('sets no endpoint for an attached cluster, and no NODE_OPTIONS when there are none', () => {
    const env = functionEnvironment(parseAppConfig({ extender: { memorySizeMiB: 512 } }), 'extender');
    expect(env).toEqual({ EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: '40m', CLUSTER_NAME: 'gpu-scheduling' });
  });

  it.each(['extender', 'labeler', 'reconciler'] as const)('%s: every variable the stack sets is read by the Lambda (NODE_OPTIONS by node itself)', (name) => {
    const env = functionEnvironment(config, name, CLUSTER);
    const read = readsOf(env, READERS[name]);
    expect(stackSet(name, env).filter((variable) => variable !== 'NODE_OPTIONS' && !read.has(variable))).toEqual([]);
  });

  it('reads back as the config says', async () => {
    const reconciler = functionEnvironment(config, 'reconciler');
    const { settings, selection } = reconcilerConfigFromEnv(reconciler);
    expect(settings.schedulerName).toBe(config.scheduler.name);
    expect(settings.capacity.runIntervalSeconds).toBe(config.reconciler.scheduleMinutes * 60);
    expect(settings.nodes.metrics.clusterName).toBe(config.clusterName);
    expect(selection.namespaces).toEqual(config.reconciler.podNamespaces);
    expect(config.reconciler.podNamespaces).toEqual(['serving', 'batch']);
    expect(schedulerMetricsConfigFromEnv(reconciler)).toMatchObject({ namespace: config.scheduler.namespace, profile: config.scheduler.name });
    expect(labelerConfigFromEnv(functionEnvironment(config, 'labeler'))).toMatchObject({ clusterName: config.clusterName, labels: { gfdLabels: true } });
    const extender = functionEnvironment(config, 'extender', CLUSTER);
    expect(extenderConfigFromEnv(extender).clusterAccess).toBe(true);
    expect(extenderConfigFromEnv(extender).profile.capacityBlockEnd?.drainMarginMs).toBe(config.extender.capacityBlockDrainMarginMinutes * 60_000);
    const connection = await kubeConnectionFromEnvironment({ ...extender, AWS_REGION: 'eu-west-1' });
    expect({ server: connection.server, caPem: connection.caPem }).toEqual({ server: CLUSTER.endpoint, caPem: CA_PEM });
  });
});

describe('the config refuses what the stack sets in an environment map', () => {
  it.each([
    [{ reconciler: { environment: { GPU_SCHEDULER_NAME: 'other' } } }, 'reconciler.environment.GPU_SCHEDULER_NAME: is set by the stack (from scheduler.name)'],
    [{ reconciler: { environment: { RUN_INTERVAL: '5m' } } }, 'reconciler.environment.RUN_INTERVAL: is set by the stack (from reconciler.scheduleMinutes)'],
    [{ labeler: { environment: { NODE_OPTIONS: '--x' } } }, 'labeler.environment.NODE_OPTIONS: is set by the stack'],
    [{ extender: { environment: { CLUSTER_ENDPOINT: 'https://x' } } }, 'extender.environment.CLUSTER_ENDPOINT: is set by the stack (from the cluster it creates)'],
    [
      { extender: { environment: { EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: '1h' } } },
      'extender.environment.EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: is set by the stack (from extender.capacityBlockDrainMarginMinutes)',
    ],
  ])('%j', (raw, message) => {
    expect(() => parseAppConfig(raw)).toThrow(message);
  });

  it('but leaves an attached cluster\'s endpoint to the operator, as the stack does not know it', () => {
    const existing = {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
      clusterSecurityGroupId: 'sg-0123456789abcdef0',
    };
    const attached = parseAppConfig({ cluster: { mode: 'existing', existing }, extender: { environment: { CLUSTER_ENDPOINT: CLUSTER.endpoint, CLUSTER_CA_DATA: CLUSTER.caData } } });
    expect(functionEnvironment(attached, 'extender')).toMatchObject({ CLUSTER_ENDPOINT: CLUSTER.endpoint });
  });
});
