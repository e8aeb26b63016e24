// The rotation's recorded progress: one small JSON object in the stack's
// bucket, beside the trust store's bundle (docs/decisions.md, "Where the
// certificate rotation records its progress", says why there). It holds no
// key and no certificate: ARNs, dates, S3 versions and CA fingerprints.
import type { BundleStore } from './aws-stores';

export const STATE_KEY = 'extender-mtls/state.json';

/** The steps of one rotation, in order; the record names the one that was about to run. */
export const ROTATION_STEPS = ['client-ca-bundle', 'trust-store', 'scheduler-secret', 'scheduler-restart', 'server-certificate'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** A rotation that has started and not finished: what it set out to replace and how far it got. */
export interface RotationInProgress {
  readonly startedAt: string;
  /** Why it started: which certificate was due (or `forced`). */
  readonly reasons: readonly string[];
  /** Replace the client certificate (and put its new CA into the trust store). */
  readonly client: boolean;
  /** Replace the server certificate (and put its new CA into the scheduler's ca.crt). */
  readonly server: boolean;
  /** Drop every earlier CA from both bundles. */
  readonly revokePrevious: boolean;
  /** The step that was about to run when the record was last written. */
  readonly step: RotationStep;
  /** The client CA this rotation put into the bundle, until the Secret holds a certificate it signed. */
  readonly clientCa?: string;
  /** The server CA this rotation put into the scheduler's ca.crt, until ACM holds a certificate it signed. */
  readonly serverCa?: string;
  /** The Secret was written and the scheduler has not been seen to roll onto it yet. */
  readonly restartPending?: boolean;
}

/** A listener certificate of an ALB that was replaced: deleted once no listener uses it. */
export interface RetiredCertificate {
  readonly arn: string;
  readonly dnsName?: string;
}

export interface RotationRecord {
  /** The ACM certificate the listener serves. */
  readonly certificateArn?: string;
  /** The DNS name it was issued for (the ALB's). */
  readonly serverDnsName?: string;
  /** When the server certificate ends. */
  readonly notAfter?: string;
  /** The bundle version the trust store was last pointed at (and seen active with); the latest one before the trust store existed. */
  readonly trustStoreVersion?: string;
  readonly inProgress?: RotationInProgress;
  readonly retired?: readonly RetiredCertificate[];
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** The record, or an empty one when none exists. An unreadable record is an error: it must not read as "nothing in progress". */
export async function readRecord(bundles: BundleStore): Promise<RotationRecord> {
  const text = await bundles.get(STATE_KEY);
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`s3 object ${STATE_KEY} is not JSON: ${String(error)}`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`s3 object ${STATE_KEY} is not a JSON object`);
  const raw = parsed as Record<string, unknown>;
  const inProgress = raw.inProgress as Partial<RotationInProgress> | undefined;
  return {
    ...(isString(raw.certificateArn) ? { certificateArn: raw.certificateArn } : {}),
    ...(isString(raw.serverDnsName) ? { serverDnsName: raw.serverDnsName } : {}),
    ...(isString(raw.notAfter) ? { notAfter: raw.notAfter } : {}),
    ...(isString(raw.trustStoreVersion) ? { trustStoreVersion: raw.trustStoreVersion } : {}),
    ...(inProgress !== undefined && typeof inProgress === 'object' && inProgress !== null && ROTATION_STEPS.includes(inProgress.step as RotationStep)
      ? { inProgress: inProgress as RotationInProgress }
      : {}),
    ...(Array.isArray(raw.retired) ? { retired: (raw.retired as unknown[]).filter((r): r is RetiredCertificate => typeof r === 'object' && r !== null && isString((r as RetiredCertificate).arn)) } : {}),
  };
}

export async function writeRecord(bundles: BundleStore, record: RotationRecord): Promise<void> {
  await bundles.put(STATE_KEY, `${JSON.stringify(record, null, 2)}\n`);
}
