// Rotation of the extender's mutual-TLS certificates. Each generation is two
// fresh CAs (one for clients, one for the ALB's server certificate), each of
// which signs exactly one certificate and whose private key is then dropped:
// no CA key is ever stored, so nothing can issue another certificate later.
// Trust moves by bundle instead: the trust store (client CAs) and the
// scheduler's caFile (server CAs) list the new generation's CA first and keep
// every earlier CA until it expires, so a certificate of the previous
// generation stays accepted until its own expiry while the new one is rolled out.
import { X509Certificate } from 'node:crypto';
import { issueCertificate, splitPemBundle, type IssuedCertificate } from './x509';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RotationPolicy {
  /** How long each generation's CAs and certificates are valid. */
  readonly validityDays: number;
  /** Rotate when the current client certificate has fewer days than this left; also the overlap of two generations. */
  readonly renewBeforeDays: number;
}

export const DEFAULT_ROTATION_POLICY: RotationPolicy = { validityDays: 90, renewBeforeDays: 30 };

export interface ServerNames {
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

/** One generation: the two certificates with their keys, and the CAs that signed them (certificates only). */
export interface CertificateGeneration {
  readonly client: IssuedCertificate;
  readonly server: IssuedCertificate;
  readonly clientCaPem: string;
  readonly serverCaPem: string;
  readonly notAfter: Date;
}

export interface TrustBundles {
  /** The trust store's CA bundle: who may call the extender. */
  readonly clientCaBundle: string;
  /** The scheduler's caFile: which server certificates it accepts. */
  readonly serverCaBundle: string;
}

export function validatePolicy(policy: RotationPolicy): void {
  if (!Number.isInteger(policy.validityDays) || policy.validityDays < 2) throw new Error(`validityDays must be an integer ≥ 2, got ${policy.validityDays}`);
  if (!Number.isInteger(policy.renewBeforeDays) || policy.renewBeforeDays < 1 || policy.renewBeforeDays >= policy.validityDays) {
    throw new Error(`renewBeforeDays must be an integer from 1 to validityDays - 1 (${policy.validityDays - 1}), got ${policy.renewBeforeDays}`);
  }
}

function issueWithThrowawayCa(role: 'server' | 'client', commonName: string, notBefore: Date, notAfter: Date, names: ServerNames): { issued: IssuedCertificate; caPem: string } {
  const ca = issueCertificate({ role: 'ca', commonName: `${commonName} CA`, notBefore, notAfter });
  const issued = issueCertificate({ role, commonName, notBefore, notAfter, ...names }, { commonName: `${commonName} CA`, privateKey: ca.privateKey, publicKey: ca.publicKey });
  // Only the CA's certificate leaves: its key goes out of scope here.
  return { issued: { certificatePem: issued.certificatePem, privateKeyPem: issued.privateKeyPem }, caPem: ca.certificatePem };
}

/**
 * A new generation valid from `now` (backdated a minute for clock skew) for `validityDays`.
 * The client certificate's CN is what the extender's callers are known by.
 */
export function newGeneration(now: Date, policy: RotationPolicy, serverNames: ServerNames, clientName = 'gpu-scheduler'): CertificateGeneration {
  validatePolicy(policy);
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + policy.validityDays * DAY_MS);
  const client = issueWithThrowawayCa('client', clientName, notBefore, notAfter, {});
  const server = issueWithThrowawayCa('server', 'gpu-scheduling-extender', notBefore, notAfter, serverNames);
  return { client: client.issued, server: server.issued, clientCaPem: client.caPem, serverCaPem: server.caPem, notAfter };
}

/** The bundle with `newCa` first and every CA of `previous` still valid at `now` after it (expired ones and duplicates dropped). */
export function mergeBundle(newCa: string, previous: string | undefined, now: Date): string {
  const fresh = new X509Certificate(newCa);
  const kept = splitPemBundle(previous ?? '').filter((block) => {
    const cert = new X509Certificate(block);
    return new Date(cert.validTo) > now && cert.fingerprint256 !== fresh.fingerprint256;
  });
  return [newCa, ...kept].join('');
}

/** The bundles after `generation` replaces whatever `previous` trusted. */
export function rotatedBundles(generation: CertificateGeneration, previous: TrustBundles | undefined, now: Date): TrustBundles {
  return {
    clientCaBundle: mergeBundle(generation.clientCaPem, previous?.clientCaBundle, now),
    serverCaBundle: mergeBundle(generation.serverCaPem, previous?.serverCaBundle, now),
  };
}

/** Whether the client certificate in use must be replaced: none yet, unreadable, or fewer than `renewBeforeDays` left. */
export function rotationDue(currentClientCertPem: string | undefined, now: Date, policy: RotationPolicy): boolean {
  if (currentClientCertPem === undefined || currentClientCertPem === '') return true;
  let validTo: Date;
  try {
    validTo = new Date(new X509Certificate(currentClientCertPem).validTo);
  } catch {
    return true;
  }
  return validTo.getTime() - now.getTime() < policy.renewBeforeDays * DAY_MS;
}
