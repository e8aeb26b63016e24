import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

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
