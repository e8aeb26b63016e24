import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { kubeConnectionFromKubeconfig, kubeConnectionFromKubeconfigFile } from '../../../../local/control-plane/kubeconfig-connection';
import { writeKubeconfig } from '../../../../local/control-plane/kubeconfig-file';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const CA_DATA = Buffer.from(CA_PEM).toString('base64');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-connection-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'other', cluster: { server: 'https://wrong.example' } }, { name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

describe('kubeConnectionFromKubeconfig', () => {
  it('reads the current context of a JSON kubeconfig: server, embedded CA, bearer token', async () => {
    const c = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://127.0.0.1:6443', 'certificate-authority-data': CA_DATA }, { token: 'abc' }), '/x/config');
    expect(c.server).toBe('https://127.0.0.1:6443');
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('abc');
  });

  it('reads the YAML kubeconfig the local harness writes', async () => {
    const path = join(dir, 'harness.yaml');
    writeKubeconfig(path, { server: 'https://127.0.0.1:7443', caPem: CA_PEM, user: 'extender', token: 'tok-1' });
    const c = await kubeConnectionFromKubeconfigFile(path);
    expect(c.server).toBe('https://127.0.0.1:7443');
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('tok-1');
  });

  it('resolves certificate-authority and tokenFile relative to the kubeconfig, re-reading the token', async () => {
    writeFileSync(join(dir, 'ca.crt'), CA_PEM);
    writeFileSync(join(dir, 'token'), 'first\n');
    const c = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://k:443', 'certificate-authority': 'ca.crt' }, { tokenFile: 'token' }), join(dir, 'config'));
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('first');
    writeFileSync(join(dir, 'token'), 'rotated\n');
    await expect(c.tokens.token()).resolves.toBe('rotated');
  });

  it.each([
    [{ exec: { command: 'aws' } }, /uses exec, which this client does not support/],
    [{ 'client-certificate-data': 'x', 'client-key-data': 'y' }, /uses client-certificate-data, client-key-data/],
    [{ 'auth-provider': { name: 'oidc' } }, /uses auth-provider/],
    [{}, /has no token or tokenFile/],
  ])('fails clearly on unsupported user auth %j', async (user, message) => {
    const error: unknown = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://k', 'certificate-authority-data': CA_DATA }, user), '/x/config').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^KUBECONFIG="\/x\/config" is invalid/);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    [{ server: 'https://k' }, /no certificate-authority-data or certificate-authority/],
    [{ server: 'https://k', 'certificate-authority-data': CA_DATA, 'insecure-skip-tls-verify': true }, /insecure-skip-tls-verify is not supported/],
    [{ server: 'http://k', 'certificate-authority-data': CA_DATA }, /is not an https URL/],
    [{ server: 'https://k', 'certificate-authority-data': Buffer.from('not a cert').toString('base64') }, /base64 of a PEM CA certificate/],
  ])('fails clearly on a cluster it cannot pin %j', async (cluster, message) => {
    await expect(kubeConnectionFromKubeconfig(kubeconfig(cluster, { token: 't' }), '/x/config')).rejects.toThrow(message);
  });

  it('names a missing context, and text that is neither JSON nor YAML', async () => {
    await expect(kubeConnectionFromKubeconfig(JSON.stringify({ contexts: [], 'current-context': 'gone' }), '/x/config')).rejects.toThrow(/context "gone" not found/);
    await expect(kubeConnectionFromKubeconfig('a: [unclosed', '/x/config')).rejects.toThrow(/not JSON or YAML/);
  });

  it('names KUBECONFIG when the file cannot be read', async () => {
    await expect(kubeConnectionFromKubeconfigFile('/nonexistent/kubeconfig')).rejects.toThrow(/KUBECONFIG="\/nonexistent\/kubeconfig" is invalid/);
  });
});
