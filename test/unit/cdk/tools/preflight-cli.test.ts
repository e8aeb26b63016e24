import { describe, expect, it } from 'vitest';
import { formatFindings } from '../../../../cdk/tools/preflight-cli';

describe('the preflight report', () => {
  it('puts blockers first, each resolution under its finding, and ends with the verdict', () => {
    const text = formatFindings([
      { severity: 'ok', topic: 'Kubernetes version', message: 'v1.36.3, as configured' },
      { severity: 'blocker', topic: 'device plugin', message: 'the GPU Operator already advertises nvidia.com/gpu', resolve: 'addons.nvidiaDevicePlugin.enabled: false' },
      { severity: 'warning', topic: 'GPU NodePools', message: 'NodePool h100: no toleration', resolve: 'admission.gpuTaints' },
    ]);
    expect(text.split('\n')).toEqual([
      'BLOCKER  device plugin       the GPU Operator already advertises nvidia.com/gpu',
      '                             → addons.nvidiaDevicePlugin.enabled: false',
      'WARNING  GPU NodePools       NodePool h100: no toleration',
      '                             → admission.gpuTaints',
      'ok       Kubernetes version  v1.36.3, as configured',
      '',
      '1 blocker(s), 1 warning(s): resolve the blockers before cdk deploy.',
    ]);
    expect(formatFindings([{ severity: 'info', topic: 'Kueue', message: 'not installed' }]).split('\n').at(-1)).toBe('0 blocker(s), 0 warning(s): nothing blocks cdk deploy.');
  });
});
