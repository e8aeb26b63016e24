import { describe, expect, it } from 'vitest';
import { functionEnvironment as deployedEnvironment } from '../../../../cdk/app-config/function-environment';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';
import { schedulerMetricsConfigFromEnv } from '../../../../lambdas/reconciler/scheduler-metrics-config';
import { functionEnvironment, LOCAL_DEFAULTS, LOCAL_WITHHELD } from '../../../../local/start/function-environment';

const MOTO = 'http://127.0.0.1:5999';
const CLUSTER = { endpoint: 'https://127.0.0.1:6443', caData: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') };
/** What the local layer may add to what the stack sets: the runtime's own variables, moto and the local defaults. */
const LOCAL_ONLY = /^(PATH|TZ|AWS_[A-Z_]+)$/;

describe('the local Lambdas\' environment', () => {
  it('carries a custom scheduler name and the schedule to the local reconciler, as the stack does', () => {
    const config = parseAppConfig({ scheduler: { name: 'team-scheduler', namespace: 'gpu-system' }, reconciler: { scheduleMinutes: 2 } });
    const env = functionEnvironment(config, 'reconciler', { motoUrl: MOTO });
    expect(reconcilerConfigFromEnv(env).settings.schedulerName).toBe('team-scheduler');
    expect(reconcilerConfigFromEnv(env).settings.capacity.runIntervalSeconds).toBe(120);
    // The local gpu-scheduler is a process, not a pod to scrape: the metrics step stays off.
    expect(schedulerMetricsConfigFromEnv(env)).toBeUndefined();
  });

  it.each(['extender', 'labeler', 'reconciler'] as const)('%s: is the deployed environment plus only the local AWS endpoint and local defaults', (name) => {
    const config = parseAppConfig({ labeler: { environment: { LABEL_GFD_COMPAT: 'true' } } });
    const local = functionEnvironment(config, name, { motoUrl: MOTO, cluster: CLUSTER });
    const deployed: Record<string, string> = { ...deployedEnvironment(config, name, CLUSTER) };
    for (const variable of LOCAL_WITHHELD[name]) {
      expect(variable in deployed).toBe(true);
      delete deployed[variable];
    }
    expect(local).toMatchObject(deployed);
    const added = Object.keys(local).filter((variable) => !(variable in deployed));
    expect(added.filter((variable) => !LOCAL_ONLY.test(variable) && !(variable in LOCAL_DEFAULTS[name]))).toEqual([]);
    expect(local.AWS_ENDPOINT_URL).toBe(MOTO);
  });

  it('gives the extender the local API server as a new cluster\'s endpoint, and none for an attached cluster', () => {
    expect(functionEnvironment(parseAppConfig({}), 'extender', { motoUrl: MOTO, cluster: CLUSTER }).CLUSTER_ENDPOINT).toBe(CLUSTER.endpoint);
    const existing = {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      privateSubnetIds: ['subnet-0123456789abcdef0', 'subnet-0123456789abcdef1'],
      clusterSecurityGroupId: 'sg-0123456789abcdef0',
    };
    const attached = parseAppConfig({ cluster: { mode: 'existing', existing } });
    expect(functionEnvironment(attached, 'extender', { motoUrl: MOTO, cluster: CLUSTER })).not.toHaveProperty('CLUSTER_ENDPOINT');
  });

  it('lets the config override a local default', () => {
    expect(functionEnvironment(parseAppConfig({}), 'extender', { motoUrl: MOTO }).EXTENDER_CACHE_TTL).toBe('500ms');
    expect(functionEnvironment(parseAppConfig({ extender: { environment: { EXTENDER_CACHE_TTL: '2s' } } }), 'extender', { motoUrl: MOTO }).EXTENDER_CACHE_TTL).toBe('2s');
  });
});
