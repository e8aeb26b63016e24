// Kubeconfig files for the local control plane's identities: one context, the
// API server's CA embedded, a bearer token.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ControlPlaneIdentities, Identity } from './credentials';
import { LAMBDA_COMPONENTS, type LambdaComponent } from './lambda-rbac';

/** Writes a single-context kubeconfig with the CA embedded and a bearer token. */
export function writeKubeconfig(path: string, { server, caPem, user, token }: { server: string; caPem: string; user: string; token: string }): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user } }],
    'current-context': 'local',
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
}

export interface IdentityKubeconfigs {
  admin: string;
  scheduler: string;
  controllerManager: string;
  lambdas: Record<LambdaComponent, string>;
}

/** One kubeconfig per identity in `dir`: admin, kube-scheduler, kube-controller-manager and each Lambda. */
export function writeIdentityKubeconfigs(dir: string, server: string, caPem: string, identities: ControlPlaneIdentities): IdentityKubeconfigs {
  const write = (name: string, { user, token }: Identity): string => {
    const path = join(dir, `${name}.kubeconfig`);
    writeKubeconfig(path, { server, caPem, user, token });
    return path;
  };
  return {
    admin: write('admin', identities.admin),
    scheduler: write('kube-scheduler', identities.scheduler),
    controllerManager: write('kube-controller-manager', identities.controllerManager),
    lambdas: Object.fromEntries(LAMBDA_COMPONENTS.map((component) => [component, write(component, identities.lambdas[component])])) as Record<LambdaComponent, string>,
  };
}
