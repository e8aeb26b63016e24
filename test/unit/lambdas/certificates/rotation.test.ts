import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROTATION_POLICY, mergeBundle, newGeneration, rotatedBundles, rotationDue, validatePolicy } from '../../../../lambdas/certificates/rotation';
import { splitPemBundle } from '../../../../lambdas/certificates/x509';
import { handshake } from './tls-handshake';

const DAY = 86_400_000;
const names = { dnsNames: ['localhost'] };

describe('certificate rotation', () => {
  const start = new Date();
  const first = newGeneration(start, DEFAULT_ROTATION_POLICY, names);
  const firstBundles = rotatedBundles(first, undefined, start);
  // The next run that finds the first client certificate due: 30 days before it expires.
  const rotationTime = new Date(start.getTime() + (DEFAULT_ROTATION_POLICY.validityDays - DEFAULT_ROTATION_POLICY.renewBeforeDays) * DAY + 1000);
  // Issued now so that the real handshakes below find it valid; its longer validity ends where a
  // generation issued at rotationTime would (60 days after the first one).
  const second = newGeneration(start, { ...DEFAULT_ROTATION_POLICY, validityDays: DEFAULT_ROTATION_POLICY.validityDays + 60 }, names);
  const overlap = rotatedBundles(second, firstBundles, rotationTime);

  it('is due with no certificate, an unreadable one, or one inside the renewal window', () => {
    expect(rotationDue(undefined, start, DEFAULT_ROTATION_POLICY)).toBe(true);
    expect(rotationDue('not a certificate', start, DEFAULT_ROTATION_POLICY)).toBe(true);
    expect(rotationDue(first.client.certificatePem, start, DEFAULT_ROTATION_POLICY)).toBe(false);
    expect(rotationDue(first.client.certificatePem, new Date(rotationTime.getTime() - 2000), DEFAULT_ROTATION_POLICY)).toBe(false);
    expect(rotationDue(first.client.certificatePem, rotationTime, DEFAULT_ROTATION_POLICY)).toBe(true);
  });

  it('during the overlap both bundles hold both generations, newest first', () => {
    expect(splitPemBundle(overlap.clientCaBundle)).toEqual([second.clientCaPem, first.clientCaPem]);
    expect(splitPemBundle(overlap.serverCaBundle)).toEqual([second.serverCaPem, first.serverCaPem]);
  });

  it('during the overlap the new client certificate and the old one are both accepted, and the new one only by a bundle that has its CA', async () => {
    expect(await handshake({ server: second.server, client: second.client, ...overlap })).toBe('ok');
    expect(await handshake({ server: second.server, client: first.client, ...overlap })).toBe('ok');
    // The scheduler still holding the old caFile fails against the new server certificate:
    // the new server CA must reach the scheduler before the ALB presents the new certificate.
    expect(await handshake({ server: second.server, client: first.client, ...firstBundles })).toMatch(/certificate/i);
    expect(await handshake({ server: first.server, client: second.client, ...firstBundles })).not.toBe('ok');
  });

  it('drops a CA once its generation has expired, so the old client certificate stops being accepted', async () => {
    const afterFirstExpired = new Date(first.notAfter.getTime() + 1000);
    const third = newGeneration(start, { ...DEFAULT_ROTATION_POLICY, validityDays: DEFAULT_ROTATION_POLICY.validityDays + 120 }, names);
    const later = rotatedBundles(third, overlap, afterFirstExpired);
    expect(splitPemBundle(later.clientCaBundle)).toEqual([third.clientCaPem, second.clientCaPem]);
    expect(await handshake({ server: third.server, client: first.client, ...later })).not.toBe('ok');
    expect(await handshake({ server: third.server, client: second.client, ...later })).toBe('ok');
  });

  it('keeps no CA private key: each CA signed one certificate and only its certificate is returned', () => {
    const clientCa = new X509Certificate(first.clientCaPem);
    const serverCa = new X509Certificate(first.serverCaPem);
    expect(new X509Certificate(first.client.certificatePem).checkIssued(clientCa)).toBe(true);
    expect(new X509Certificate(first.server.certificatePem).checkIssued(serverCa)).toBe(true);
    expect(new X509Certificate(first.client.certificatePem).checkIssued(serverCa)).toBe(false);
    expect(JSON.stringify(first).match(/BEGIN PRIVATE KEY/g)).toHaveLength(2);
  });

  it('merging the same CA twice keeps one copy', () => {
    expect(splitPemBundle(mergeBundle(first.clientCaPem, firstBundles.clientCaBundle, start))).toEqual([first.clientCaPem]);
  });

  it('rejects a policy without an overlap', () => {
    expect(() => validatePolicy({ validityDays: 30, renewBeforeDays: 30 })).toThrow(/renewBeforeDays must be an integer from 1 to validityDays - 1 \(29\), got 30/);
    expect(() => validatePolicy({ validityDays: 1, renewBeforeDays: 0 })).toThrow(/validityDays/);
  });
});
