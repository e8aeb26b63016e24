// Local-only credentials for the control plane. kube-apiserver generates its own
// self-signed serving certificate (--cert-dir), clients authenticate with static
// bearer tokens (--token-auth-file), and the service-account signing key pair
// comes from node:crypto, so no openssl CLI is needed.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAMBDA_COMPONENTS, lambdaGroup, type LambdaComponent } from './lambda-rbac';

export interface Identity {
  user: string;
  groups: string[];
  token: string;
}

export interface ControlPlaneIdentities {
  admin: Identity;
  scheduler: Identity;
  controllerManager: Identity;
  lambdas: Record<LambdaComponent, Identity>;
}

const newToken = (): string => randomBytes(24).toString('hex');

export function newIdentities(): ControlPlaneIdentities {
  const lambdaIdentity = (component: LambdaComponent): Identity => ({
    user: lambdaGroup(component),
    groups: [lambdaGroup(component)],
    token: newToken(),
  });
  return {
    admin: { user: 'local-admin', groups: ['system:masters'], token: newToken() },
    // Bootstrap RBAC already grants this user what kube-scheduler needs.
    scheduler: { user: 'system:kube-scheduler', groups: [], token: newToken() },
    // One identity for all controllers (no --use-service-account-credentials): simpler locally.
    controllerManager: { user: 'system:kube-controller-manager', groups: ['system:masters'], token: newToken() },
    lambdas: Object.fromEntries(LAMBDA_COMPONENTS.map((component) => [component, lambdaIdentity(component)])) as Record<LambdaComponent, Identity>,
  };
}

/** Writes the CSV that --token-auth-file reads: token,user,uid,"group1,group2". */
export function writeTokenFile(path: string, identities: ControlPlaneIdentities): void {
  const all = [identities.admin, identities.scheduler, identities.controllerManager, ...Object.values(identities.lambdas)];
  const lines = all.map((id) => `${id.token},${id.user},${id.user}${id.groups.length ? `,"${id.groups.join(',')}"` : ''}`);
  writeFileSync(path, lines.join('\n') + '\n', { mode: 0o600 });
}

export interface ServiceAccountKeyFiles {
  privateKeyFile: string;
  publicKeyFile: string;
}

export function writeServiceAccountKeys(dir: string): ServiceAccountKeyFiles {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const privateKeyFile = join(dir, 'service-account.key');
  const publicKeyFile = join(dir, 'service-account.pub');
  writeFileSync(privateKeyFile, privateKey, { mode: 0o600 });
  writeFileSync(publicKeyFile, publicKey);
  return { privateKeyFile, publicKeyFile };
}

export interface ControlPlaneCredentials {
  identities: ControlPlaneIdentities;
  /** The API server's --token-auth-file. */
  tokenFile: string;
  serviceAccountKeys: ServiceAccountKeyFiles;
}

/** New identities with their token file, and the service-account key pair, written into `dir`. */
export function writeCredentials(dir: string): ControlPlaneCredentials {
  const identities = newIdentities();
  const tokenFile = join(dir, 'tokens.csv');
  writeTokenFile(tokenFile, identities);
  return { identities, tokenFile, serviceAccountKeys: writeServiceAccountKeys(dir) };
}
