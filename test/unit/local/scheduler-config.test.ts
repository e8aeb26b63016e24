import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_CONFIG_DEFAULTS } from '../../../cdk/app-config/app-config-defaults';
import { gpuSchedulerProfile } from '../../../cdk/lib/scheduler/second-scheduler-manifests';
import { deployedExtenderSettings, schedulerConfiguration } from '../../../local/scheduler-config';

describe('schedulerConfiguration', () => {
  it('writes a v1 KubeSchedulerConfiguration whose extender manages nvidia.com/gpu', () => {
    const config = parse(
      schedulerConfiguration({
        kubeconfig: '/k/sched.kubeconfig',
        profiles: ['gpu-scheduler'],
        extender: { ...deployedExtenderSettings('http://127.0.0.1:9999'), weight: 5 },
      }),
    ) as Record<string, unknown>;
    expect(config).toMatchObject({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      clientConnection: { kubeconfig: '/k/sched.kubeconfig' },
      leaderElection: { leaderElect: false },
      profiles: [
        {
          schedulerName: 'gpu-scheduler',
          plugins: { score: { disabled: [{ name: 'NodeResourcesFit' }, { name: 'NodeResourcesBalancedAllocation' }, { name: 'ImageLocality' }] } },
          pluginConfig: [{ name: 'PodTopologySpread', args: { defaultingType: 'List', defaultConstraints: [] } }],
        },
      ],
      extenders: [
        {
          urlPrefix: 'http://127.0.0.1:9999',
          filterVerb: 'filter',
          prioritizeVerb: 'prioritize',
          preemptVerb: 'preempt',
          weight: 5,
          enableHTTPS: false,
          nodeCacheCapable: true,
          ignorable: false,
          httpTimeout: '5s',
        },
      ],
    });
  });

  it('leaves out the preempt verb unless asked and honours nodeCacheCapable false, ignorable and the timeout', () => {
    const config = parse(
      schedulerConfiguration({
        kubeconfig: 'k',
        profiles: ['gpu-scheduler'],
        extender: { urlPrefix: 'https://ext.internal', nodeCacheCapable: false, ignorable: true, httpTimeoutSeconds: 2, preempt: false, weight: 2 },
      }),
    ) as { extenders: Record<string, unknown>[] };
    const [extender] = config.extenders;
    expect(extender).not.toHaveProperty('preemptVerb');
    expect(extender).toMatchObject({ nodeCacheCapable: false, ignorable: true, enableHTTPS: true, httpTimeout: '2s' });
  });

  it('runs the deployed profile and, as deployed, the configured extender weight', () => {
    const config = parse(schedulerConfiguration({ kubeconfig: 'k', profiles: ['gpu-scheduler'], extender: deployedExtenderSettings('http://127.0.0.1:1') })) as {
      profiles: unknown[];
      extenders: Record<string, unknown>[];
    };
    expect(config.profiles).toEqual([JSON.parse(JSON.stringify(gpuSchedulerProfile('gpu-scheduler')))]);
    expect(config.extenders[0]?.weight).toBe(APP_CONFIG_DEFAULTS.scheduler.extender.weight);
  });

  it('has no extenders for a plain default scheduler', () => {
    const config = parse(schedulerConfiguration({ kubeconfig: 'k', profiles: ['default-scheduler'] })) as Record<string, unknown>;
    expect(config).not.toHaveProperty('extenders');
    expect(config.profiles).toEqual([{ schedulerName: 'default-scheduler' }]);
  });

  it('runs the deployed profile without an extender when asked (the bench baseline)', () => {
    const config = parse(schedulerConfiguration({ kubeconfig: 'k', profiles: ['gpu-scheduler'], gpuProfile: true })) as Record<string, unknown>;
    expect(config).not.toHaveProperty('extenders');
    expect(config.profiles).toEqual([JSON.parse(JSON.stringify(gpuSchedulerProfile('gpu-scheduler')))]);
  });
});
