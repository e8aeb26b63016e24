import { beforeAll, describe, expect, it } from 'vitest';
import { renderCfnString } from '../../../../cdk/tools/cfn-string';
import { resourcesOfType, synthesize, type Synthesized } from '../support/synthesize';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize({ addons: { kueue: { enabled: true } }, cluster: { gpuCapacity: 'node-groups', gpuNodeGroups: [{ name: 'h100', instanceTypes: ['p5.48xlarge'] }] } });
}, 300_000);

describe('the stack with addons.kueue.enabled', () => {
  it('installs the pinned Kueue chart, then the Topology and the node groups\' flavors after it', () => {
    const [chartId, chart = {}] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-HelmChart').find(([, properties]) => properties.Chart === 'kueue') ?? [];
    expect(chart).toMatchObject({ Repository: 'oci://registry.k8s.io/kueue/charts/kueue', Version: '0.17.0', Namespace: 'kueue-system', Wait: true });
    const [objectsId, objects = {}] = resourcesOfType(synth.json, 'Custom::AWSCDK-EKS-KubernetesResource').find(([, properties]) => renderCfnString(properties.Manifest).includes('ResourceFlavor')) ?? [];
    const manifest = renderCfnString(objects.Manifest);
    expect(manifest).toContain('"kind":"Topology"');
    expect(manifest).toContain('"node.kubernetes.io/instance-type":"p5.48xlarge"');
    const dependsOn = synth.json.Resources[objectsId ?? '']?.DependsOn ?? [];
    expect(dependsOn).toContain(chartId);
  });
});
