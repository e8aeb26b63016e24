// The rotation Lambda: a CloudFormation custom resource (through aws-cdk-lib's
// provider framework) that issues the first generation on Create, gives a
// replaced ALB its own certificate on Update and removes certificates on
// Delete, and an EventBridge schedule that rotates when due and resumes a
// rotation a failed run left. Its answers and logs carry ARNs, dates and
// fingerprints only, never a key.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { errorMessage } from '../common/error-message';
import type { Env } from '../env';
import { envString } from '../env';
import { awsClientConfigFromEnv } from '../aws';
import { kubeConfigFromEnvironment } from '../kube';
import { awsCaller } from './aws-signed-request';
import { acmCertificateStore, elbTrustStore, s3BundleStore } from './aws-stores';
import { CLIENT_CA_BUNDLE_KEY, deleteCertificates, retiredCertificateArns, rotateCertificates, serveNewEndpoint, type RotationOutcome } from './rotate-certificates';
import { readRecord, type RotationStep } from './rotation-record';
import { DEFAULT_ROTATION_POLICY, type RotationPolicy } from './rotation';
import { schedulerSecretPorts } from './scheduler-secret';

export interface CustomResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties?: { readonly ServerDnsName?: string };
  readonly OldResourceProperties?: { readonly ServerDnsName?: string };
}

/**
 * The schedule's input: the trust store exists by then, the rule names it.
 * Invoked by hand: `force` rotates now; `revokePrevious` also drops every
 * earlier CA from both bundles, so a leaked client certificate stops working
 * at once (the scheduler's calls fail until its pods have restarted on the new one).
 */
export interface ScheduledRotationEvent {
  readonly rotate: true;
  readonly trustStoreArn: string;
  readonly force?: boolean;
  readonly revokePrevious?: boolean;
}

export interface CertificatesResult {
  readonly PhysicalResourceId?: string;
  readonly Data?: { readonly CertificateArn: string };
  readonly rotated?: boolean;
}

/** The physical id of stacks deployed before each certificate was its own resource instance. */
export const LEGACY_PHYSICAL_ID = 'gpu-scheduling-extender-mtls';
/** The tag every certificate the function imports carries; its IAM policy admits no other certificate. */
export const CERTIFICATE_PURPOSE_TAG = { key: 'gpu-scheduling:purpose', value: 'extender-mtls-server' } as const;
/** The tag naming the stack, whose value the function reads from CERTIFICATE_OWNER. */
export const CERTIFICATE_OWNER_TAG_KEY = 'gpu-scheduling:stack';

const isAcmArn = (id: string | undefined): id is string => id !== undefined && /^arn:aws[a-z-]*:acm:/.test(id);

function isScheduled(event: unknown): event is ScheduledRotationEvent {
  return typeof event === 'object' && event !== null && (event as { rotate?: unknown }).rotate === true && typeof (event as { trustStoreArn?: unknown }).trustStoreArn === 'string';
}

function isCustomResource(event: unknown): event is CustomResourceEvent {
  const type = typeof event === 'object' && event !== null ? (event as { RequestType?: unknown }).RequestType : undefined;
  return type === 'Create' || type === 'Update' || type === 'Delete';
}

/** What a local host or a test injects in place of the Lambda's own wiring. */
export interface CertificatesHandlerDeps {
  /** The cluster connection; default: EKS from CLUSTER_NAME. */
  readonly kubeConfig?: () => Promise<KubeConfig>;
  readonly credentials?: AwsCredentialIdentityProvider;
  readonly now?: () => Date;
  readonly policy?: RotationPolicy;
  /** How long the scheduler's rollout may take (default 5 min). */
  readonly rolloutWaitMs?: number;
  /** How long the trust store may take to be active after ModifyTrustStore (default 2 min). */
  readonly trustStoreWaitMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly log?: (line: Readonly<Record<string, unknown>>) => void;
}

const TRUST_STORE_WAIT_MS = 2 * 60_000;

export function createCertificatesHandler(env: Env = process.env, deps: CertificatesHandlerDeps = {}) {
  const log = deps.log ?? ((line: Readonly<Record<string, unknown>>) => console.log(JSON.stringify(line)));
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const policy = deps.policy ?? DEFAULT_ROTATION_POLICY;

  return async (event: unknown): Promise<CertificatesResult> => {
    const { region, endpoint } = awsClientConfigFromEnv(env);
    const bucket = envString(env, 'CERTIFICATE_BUCKET');
    const call = awsCaller(region, deps.credentials ?? defaultProvider(), endpoint);
    const bundles = s3BundleStore(call, region, bucket, endpoint !== undefined);
    const certificates = acmCertificateStore(call, region, { [CERTIFICATE_PURPOSE_TAG.key]: CERTIFICATE_PURPOSE_TAG.value, [CERTIFICATE_OWNER_TAG_KEY]: envString(env, 'CERTIFICATE_OWNER') });

    if (isCustomResource(event) && event.RequestType === 'Delete') {
      const id = event.PhysicalResourceId;
      const record = await readRecord(bundles);
      // A stack from before: its one physical id stood for every certificate.
      // Retired ones left means this is the clean-up after a replaced ALB; none, the stack's removal.
      const targets = isAcmArn(id) ? [id] : (record.retired ?? []).length > 0 ? (record.retired ?? []).map((entry) => entry.arn) : record.certificateArn === undefined ? [] : [record.certificateArn];
      const { deleted, inUse } = await deleteCertificates({ bundles, certificates }, targets);
      log({ message: 'extender mTLS certificates deleted', deleted, ...(inUse.length > 0 ? { stillInUse: inUse } : {}) });
      return { PhysicalResourceId: id ?? LEGACY_PHYSICAL_ID };
    }
    if (!isCustomResource(event) && !isScheduled(event)) throw new Error('expected a CloudFormation custom-resource event or the rotation schedule\'s {"rotate": true, "trustStoreArn": …}');

    const serverDnsName = envString(env, 'SERVER_DNS_NAME');
    const kube = schedulerSecretPorts(
      await (deps.kubeConfig ?? (() => kubeConfigFromEnvironment(env)))(),
      { namespace: envString(env, 'SCHEDULER_NAMESPACE'), deployment: envString(env, 'SCHEDULER_NAME'), secret: envString(env, 'SCHEDULER_TLS_SECRET') },
      { sleep, now, ...(deps.rolloutWaitMs === undefined ? {} : { rolloutWaitMs: deps.rolloutWaitMs }) },
    );
    const serverNames = { dnsNames: [serverDnsName] };
    let step: RotationStep | undefined;
    const onStep = (next: RotationStep, detail: Readonly<Record<string, string>>): void => {
      step = next;
      log({ message: 'extender mTLS rotation step', step: next, ...detail });
    };
    try {
      if (isCustomResource(event) && event.RequestType === 'Update') {
        const renamed = event.ResourceProperties?.ServerDnsName !== event.OldResourceProperties?.ServerDnsName;
        if (!renamed) {
          const record = await readRecord(bundles);
          return { PhysicalResourceId: event.PhysicalResourceId ?? record.certificateArn ?? LEGACY_PHYSICAL_ID, Data: { CertificateArn: record.certificateArn ?? '' } };
        }
        const outcome = await serveNewEndpoint({ bundles, certificates, ...kube }, { now: now(), policy, serverNames, serverDnsName });
        report(log, outcome);
        return { PhysicalResourceId: outcome.certificateArn, Data: { CertificateArn: outcome.certificateArn }, rotated: outcome.rotated };
      }
      const scheduled = isScheduled(event) ? event : undefined;
      const outcome = await rotateCertificates(
        {
          bundles,
          certificates,
          ...kube,
          trustStore:
            scheduled === undefined
              ? 'not-created'
              : elbTrustStore(call, region, { trustStoreArn: scheduled.trustStoreArn, bucket, key: CLIENT_CA_BUNDLE_KEY, activeWithinMs: deps.trustStoreWaitMs ?? TRUST_STORE_WAIT_MS, sleep }),
        },
        {
          now: now(),
          policy,
          serverNames,
          // A new stack always starts from a fresh generation, trusting nothing earlier.
          force: scheduled === undefined || scheduled.force === true,
          revokePrevious: scheduled === undefined || scheduled.revokePrevious === true,
          onStep,
        },
      );
      report(log, outcome);
      if (scheduled !== undefined) {
        // Certificates of replaced ALBs whose deletion found them still in use.
        const retired = await retiredCertificateArns(bundles);
        if (retired.length > 0) log({ message: 'extender mTLS retired certificates', ...(await deleteCertificates({ bundles, certificates }, retired)) });
      }
      return { PhysicalResourceId: outcome.certificateArn, Data: { CertificateArn: outcome.certificateArn }, rotated: outcome.rotated };
    } catch (error) {
      throw new Error(`extender mTLS rotation failed${step === undefined ? '' : ` at step ${step}`} (the next run resumes from there): ${errorMessage(error)}`, { cause: error });
    }
  };
}

function report(log: (line: Readonly<Record<string, unknown>>) => void, outcome: RotationOutcome): void {
  const message = outcome.deferred
    ? 'extender mTLS rotation waits for the scheduled run (the trust store)'
    : outcome.rotated
      ? 'extender mTLS certificates rotated'
      : 'extender mTLS certificates current';
  log({ message, certificateArn: outcome.certificateArn, notAfter: outcome.notAfter, ...(outcome.reasons.length > 0 ? { reasons: outcome.reasons } : {}) });
}
