import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueCertificate, splitPemBundle } from '../../../../lambdas/certificates/x509';
import { handshake } from './tls-handshake';

const notBefore = new Date('2026-01-01T00:00:00Z');
const notAfter = new Date('2027-01-01T00:00:00Z');

describe('issueCertificate', () => {
  const ca = issueCertificate({ role: 'ca', commonName: 'test CA', notBefore, notAfter });
  const issuer = { commonName: 'test CA', privateKey: ca.privateKey, publicKey: ca.publicKey };

  it('makes a self-signed CA that node:crypto parses as one', () => {
    const cert = new X509Certificate(ca.certificatePem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toContain('CN=test CA');
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(new Date(cert.validFrom)).toEqual(notBefore);
    expect(new Date(cert.validTo)).toEqual(notAfter);
  });

  it('signs server and client certificates with their names and key usage', () => {
    const server = issueCertificate({ role: 'server', commonName: 'srv', notBefore, notAfter, dnsNames: ['localhost', 'internal-x.elb.amazonaws.com'], ipAddresses: ['127.0.0.1'] }, issuer);
    const client = issueCertificate({ role: 'client', commonName: 'gpu-scheduler', notBefore, notAfter }, issuer);
    const serverCert = new X509Certificate(server.certificatePem);
    const clientCert = new X509Certificate(client.certificatePem);
    expect(serverCert.ca).toBe(false);
    expect(serverCert.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    expect(serverCert.verify(ca.publicKey)).toBe(true);
    expect(serverCert.subjectAltName).toBe('DNS:localhost, DNS:internal-x.elb.amazonaws.com, IP Address:127.0.0.1');
    expect(serverCert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(clientCert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(clientCert.verify(ca.publicKey)).toBe(true);
    expect(serverCert.serialNumber).not.toBe(clientCert.serialNumber);
  });

  it('passes a real mutual-TLS handshake, and a client without a certificate is refused', async () => {
    const foreign = issueCertificate({ role: 'client', commonName: 'gpu-scheduler', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) }, issuer);
    const liveCa = issueCertificate({ role: 'ca', commonName: 'live CA', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) });
    const live = { commonName: 'live CA', privateKey: liveCa.privateKey, publicKey: liveCa.publicKey };
    const liveServer = issueCertificate({ role: 'server', commonName: 'srv', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000), dnsNames: ['localhost'] }, live);
    const liveClient = issueCertificate({ role: 'client', commonName: 'c', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) }, live);
    const liveBundles = { clientCaBundle: liveCa.certificatePem, serverCaBundle: liveCa.certificatePem };
    expect(await handshake({ server: liveServer, client: liveClient, ...liveBundles })).toBe('ok');
    expect(await handshake({ server: liveServer, ...liveBundles })).not.toBe('ok');
    // A client certificate from another CA is refused as well.
    expect(await handshake({ server: liveServer, client: foreign, ...liveBundles })).not.toBe('ok');
    // The client checks the server's name against its certificate.
    expect(await handshake({ server: liveServer, client: liveClient, ...liveBundles, servername: 'elsewhere' })).toMatch(/altnames/i);
  });

  it('refuses requests it cannot honour', () => {
    expect(() => issueCertificate({ role: 'client', commonName: 'x', notBefore, notAfter })).toThrow(/needs an issuing CA/);
    expect(() => issueCertificate({ role: 'server', commonName: 'x', notBefore, notAfter }, issuer)).toThrow(/DNS name or an IP address/);
    expect(() => issueCertificate({ role: 'ca', commonName: 'x', notBefore: notAfter, notAfter: notBefore })).toThrow(/must be after/);
    expect(() => issueCertificate({ role: 'server', commonName: 'x', notBefore, notAfter, ipAddresses: ['::1'] }, issuer)).toThrow(/not an IPv4 address/);
  });

  it('splits a PEM bundle into its certificates', () => {
    const other = issueCertificate({ role: 'ca', commonName: 'other', notBefore, notAfter });
    expect(splitPemBundle(`${ca.certificatePem}${other.certificatePem}`)).toEqual([ca.certificatePem, other.certificatePem]);
    expect(splitPemBundle('')).toEqual([]);
  });
});
