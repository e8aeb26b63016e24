import { describe, expect, it } from 'vitest';
import { KUBERNETES_VERSIONS } from '../../../../cdk/app-config/app-config';
import { KUBERNETES_RELEASES, LOCALLY_BUILT_MINOR, locallyBuiltRelease } from '../../../../cdk/app-config/kubernetes-releases';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';
import { secondSchedulerManifests } from '../../../../cdk/lib/scheduler/second-scheduler-manifests';
import { pinnedKubernetesVersion } from '../../../../local/builds/kube-binaries';
import { findObject } from '../support/synthesize';

function deployedImage(kubernetesVersion: string): unknown {
  const { scheduler } = parseAppConfig({ kubernetesVersion });
  const deployment = findObject(secondSchedulerManifests({ scheduler, extenderUrlPrefix: 'http://x:80' }), 'Deployment', scheduler.name) as {
    spec: { template: { spec: { containers: { image?: string }[] } } };
  };
  return deployment.spec.template.spec.containers[0]?.image;
}

describe('one table of Kubernetes releases for the deployed scheduler and the tested binaries', () => {
  it.each(KUBERNETES_VERSIONS.map((version) => [version, KUBERNETES_RELEASES[version]]))(
    'kubernetes %s deploys kube-scheduler v%s by default, a patch release of that version',
    (version, release) => {
      expect(release.startsWith(`${version}.`)).toBe(true);
      expect(deployedImage(version)).toBe(`registry.k8s.io/kube-scheduler:v${release}`);
    },
  );

  it(`the binaries the tests run (local/builds/go-modules/kube-binaries/go.mod) are the release deployed for ${LOCALLY_BUILT_MINOR}`, () => {
    expect(KUBERNETES_VERSIONS).toContain(LOCALLY_BUILT_MINOR);
    // pinnedKubernetesVersion throws when go.mod and the table disagree.
    expect(pinnedKubernetesVersion()).toBe(locallyBuiltRelease());
    expect(locallyBuiltRelease()).toBe(`v${KUBERNETES_RELEASES[LOCALLY_BUILT_MINOR]}`);
  });
});
