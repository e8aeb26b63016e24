// Issues X.509 certificates with node:crypto: ECDSA P-256 keys, SHA-256
// signatures. Enough for a private CA, a TLS server certificate and a client
// certificate that kube-scheduler (Go crypto/tls), the ALB's mutual TLS and
// Node's https server all accept.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  bitString,
  booleanTrue,
  explicit,
  implicitPrimitive,
  namedBits,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** KeyUsage bit numbers (RFC 5280 §4.2.1.3). */
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

export type CertificateRole = 'ca' | 'server' | 'client';

export interface CertificateRequest {
  readonly role: CertificateRole;
  readonly commonName: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Server certificates: the DNS names and IP addresses clients connect to. */
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

/** A certificate and its key, both PEM. */
export interface IssuedCertificate {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** The issuer: a CA's certificate subject and key. Omitted: the certificate signs itself. */
export interface Issuer {
  readonly commonName: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export const ORGANIZATION = 'gpu-scheduling';

function distinguishedName(commonName: string): Buffer {
  const attribute = (oid: string, value: string): Buffer => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(attribute(OID.organization, ORGANIZATION), attribute(OID.commonName, commonName));
}

function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1').update(publicKey.export({ type: 'spki', format: 'der' })).digest();
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));
}

function ipAddressBytes(address: string): Buffer {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) {
    throw new Error(`not an IPv4 address: ${address}`);
  }
  return Buffer.from(parts);
}

function extensions(request: CertificateRequest, subjectKey: KeyObject, issuerKey: KeyObject): Buffer {
  const list = [
    extension(OID.basicConstraints, true, request.role === 'ca' ? sequence(booleanTrue()) : sequence()),
    extension(OID.keyUsage, true, namedBits(request.role === 'ca' ? [DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN] : [DIGITAL_SIGNATURE])),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(subjectKey))),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(issuerKey)))),
  ];
  if (request.role !== 'ca') {
    list.push(extension(OID.extKeyUsage, false, sequence(objectIdentifier(request.role === 'server' ? OID.serverAuth : OID.clientAuth))));
  }
  const names = [
    ...(request.dnsNames ?? []).map((name) => implicitPrimitive(2, Buffer.from(name, 'ascii'))),
    ...(request.ipAddresses ?? []).map((address) => implicitPrimitive(7, ipAddressBytes(address))),
  ];
  if (request.role === 'server' && names.length === 0) throw new Error('a server certificate needs a DNS name or an IP address');
  if (names.length > 0) list.push(extension(OID.subjectAltName, false, sequence(...names)));
  return explicit(3, sequence(...list));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * A new key pair and a certificate for it, signed by `issuer` (a CA's key) or
 * by itself. The serial is 16 random bytes, as CAs/Browser Forum rules ask.
 */
export function issueCertificate(request: CertificateRequest, issuer?: Issuer): IssuedCertificate & { readonly privateKey: KeyObject; readonly publicKey: KeyObject } {
  if (!(request.notAfter > request.notBefore)) throw new Error(`notAfter (${request.notAfter.toISOString()}) must be after notBefore (${request.notBefore.toISOString()})`);
  if (request.role !== 'ca' && issuer === undefined) throw new Error(`a ${request.role} certificate needs an issuing CA`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = issuer ?? { commonName: request.commonName, privateKey, publicKey };
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithm,
    distinguishedName(signer.commonName),
    sequence(time(request.notBefore), time(request.notAfter)),
    distinguishedName(request.commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions(request, publicKey, signer.publicKey),
  );
  const signature = sign('sha256', tbs, { key: signer.privateKey, dsaEncoding: 'der' });
  const certificate = sequence(tbs, algorithm, bitString(signature));
  return {
    certificatePem: pem('CERTIFICATE', certificate),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    privateKey,
    publicKey,
  };
}

/** The PEM certificates in a bundle, in order. */
export function splitPemBundle(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)?.map((block) => (block.endsWith('\n') ? block : `${block}\n`)) ?? [];
}
