// Rotation of the extender's mutual-TLS certificates. Each generation is two
// fresh CAs (one for clients, one for the ALB's server certificate), each of
// which signs exactly one certificate and whose private key is then dropped:
// no CA key is ever stored, so nothing can issue another certificate later.
// Trust moves by bundle instead: the trust store (client CAs) and the
// scheduler's caFile (server CAs) list the new generation's CA first and keep
// every earlier CA until it expires, so a certificate of the previous
// generation stays accepted until its own expiry while the new one is rolled out.
// The two sides are issued apart, so a rotation that was interrupted can
// replace just the side it had not finished (rotate-certificates.ts).
import { X509Certificate } from 'node:crypto';
import { issueCertificate, splitPemBundle, type IssuedCertificate } from './x509';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RotationPolicy {
  /** How long each generation's CAs and certificates are valid. */
  readonly validityDays: number;
  /** Rotate when a certificate in use has fewer days than this left; also the overlap of two generations. */
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

/** One side of a generation: the certificate with its key, and the CA that signed it (certificate only). */
export interface IssuedSide {
  readonly issued: IssuedCertificate;
  readonly caPem: string;
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

function issueWithThrowawayCa(role: 'server' | 'client', commonName: string, now: Date, policy: RotationPolicy, names: ServerNames): IssuedSide {
  validatePolicy(policy);
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + policy.validityDays * DAY_MS);
  const ca = issueCertificate({ role: 'ca', commonName: `${commonName} CA`, notBefore, notAfter });
  const issued = issueCertificate({ role, commonName, notBefore, notAfter, ...names }, { commonName: `${commonName} CA`, privateKey: ca.privateKey, publicKey: ca.publicKey });
  // Only the CA's certificate leaves: its key goes out of scope here.
  return { issued: { certificatePem: issued.certificatePem, privateKeyPem: issued.privateKeyPem }, caPem: ca.certificatePem, notAfter };
}

/**
 * The client side of a generation, valid from `now` (backdated a minute for
 * clock skew) for `validityDays`. Its CN is what the extender's callers are known by.
 */
export function issueClientSide(now: Date, policy: RotationPolicy, clientName = 'gpu-scheduler'): IssuedSide {
  return issueWithThrowawayCa('client', clientName, now, policy, {});
}

/** The server side of a generation: the ALB's certificate naming `serverNames`. */
export function issueServerSide(now: Date, policy: RotationPolicy, serverNames: ServerNames): IssuedSide {
  return issueWithThrowawayCa('server', 'gpu-scheduling-extender', now, policy, serverNames);
}

/** Both sides at once (a fresh start: the local harness, tests). */
export function newGeneration(now: Date, policy: RotationPolicy, serverNames: ServerNames, clientName = 'gpu-scheduler'): CertificateGeneration {
  const client = issueClientSide(now, policy, clientName);
  const server = issueServerSide(now, policy, serverNames);
  return { client: client.issued, server: server.issued, clientCaPem: client.caPem, serverCaPem: server.caPem, notAfter: client.notAfter };
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

/** When the certificate ends, or undefined when it cannot be read. */
export function notAfterOf(certificatePem: string | undefined): Date | undefined {
  if (certificatePem === undefined || certificatePem === '') return undefined;
  try {
    return new Date(new X509Certificate(certificatePem).validTo);
  } catch {
    return undefined;
  }
}

/** Whether a certificate in use (client, server or CA) must be replaced: none, unreadable, or fewer than `renewBeforeDays` left. */
export function rotationDue(certificatePem: string | undefined, now: Date, policy: RotationPolicy): boolean {
  const validTo = notAfterOf(certificatePem);
  return validTo === undefined || validTo.getTime() - now.getTime() < policy.renewBeforeDays * DAY_MS;
}

/** A CA's identity in bundles and in the rotation's record: its SHA-256 fingerprint. */
export function fingerprintOf(certificatePem: string): string {
  return new X509Certificate(certificatePem).fingerprint256;
}

/** The CA in `bundle` that signed `certificatePem`, if one did (throwaway CAs share their names, so the signature decides). */
export function issuingCaIn(certificatePem: string | undefined, bundle: string | undefined): { readonly fingerprint: string; readonly pem: string } | undefined {
  if (certificatePem === undefined || certificatePem === '') return undefined;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    return undefined;
  }
  for (const block of splitPemBundle(bundle ?? '')) {
    const ca = new X509Certificate(block);
    if (certificate.checkIssued(ca) && certificate.verify(ca.publicKey)) return { fingerprint: ca.fingerprint256, pem: block };
  }
  return undefined;
}

/** `bundle` without the CAs whose fingerprints are listed. */
export function withoutCas(bundle: string, fingerprints: readonly string[]): string {
  return splitPemBundle(bundle)
    .filter((block) => !fingerprints.includes(fingerprintOf(block)))
    .join('');
}

/** Whether the certificate names every DNS name and IP address of `names` among its subject alternative names. */
export function namesAll(certificatePem: string, names: ServerNames): boolean {
  let alternative: Set<string>;
  try {
    alternative = new Set((new X509Certificate(certificatePem).subjectAltName ?? '').split(/,\s*/));
  } catch {
    return false;
  }
  return (names.dnsNames ?? []).every((name) => alternative.has(`DNS:${name}`)) && (names.ipAddresses ?? []).every((address) => alternative.has(`IP Address:${address}`));
}
