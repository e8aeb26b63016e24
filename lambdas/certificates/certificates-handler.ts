// The rotation Lambda: a CloudFormation custom resource (through aws-cdk-lib's
// provider framework) that issues the first generation on Create and removes
// the server certificate on Delete, and an EventBridge schedule that rotates
// when due. Its answers and logs carry ARNs and dates only, never a key.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { errorMessage } from '../common/error-message';
import type { Env } from '../env';
import { envString } from '../env';
import { awsClientConfigFromEnv } from '../aws';
import { kubeConfigFromEnvironment } from '../kube';
import { awsCaller } from './aws-signed-request';
import { acmCertificateStore, modifyTrustStore, s3BundleStore } from './aws-stores';
import { CLIENT_CA_BUNDLE_KEY, readState, rotateCertificates } from './rotate-certificates';
import { DEFAULT_ROTATION_POLICY } from './rotation';
import { schedulerSecretPorts } from './scheduler-secret';

export interface CustomResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties?: { readonly ServerDnsName?: string };
  readonly OldResourceProperties?: { readonly ServerDnsName?: string };
}

/** Create, or an Update that renames the ALB: the server certificate must name the new DNS name. */
function mustReissue(event: CustomResourceEvent): boolean {
  return event.RequestType === 'Create' || (event.RequestType === 'Update' && event.ResourceProperties?.ServerDnsName !== event.OldResourceProperties?.ServerDnsName);
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

const PHYSICAL_ID = 'gpu-scheduling-extender-mtls';

function isScheduled(event: unknown): event is ScheduledRotationEvent {
  return typeof event === 'object' && event !== null && (event as { rotate?: unknown }).rotate === true && typeof (event as { trustStoreArn?: unknown }).trustStoreArn === 'string';
}

function isCustomResource(event: unknown): event is CustomResourceEvent {
  const type = typeof event === 'object' && event !== null ? (event as { RequestType?: unknown }).RequestType : undefined;
  return type === 'Create' || type === 'Update' || type === 'Delete';
}

export function createCertificatesHandler(env: Env = process.env) {
  return async (event: unknown): Promise<CertificatesResult> => {
    const { region, endpoint } = awsClientConfigFromEnv(env);
    const bucket = envString(env, 'CERTIFICATE_BUCKET');
    const call = awsCaller(region, defaultProvider(), endpoint);
    const bundles = s3BundleStore(call, region, bucket, endpoint !== undefined);
    const certificates = acmCertificateStore(call, region, { 'gpu-scheduling:purpose': 'extender-mtls-server' });

    if (isCustomResource(event) && event.RequestType === 'Delete') {
      const state = await readState(bundles);
      if (state) await certificates.deleteCertificate(state.certificateArn);
      return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID };
    }
    if (!isCustomResource(event) && !isScheduled(event)) throw new Error('expected a CloudFormation custom-resource event or the rotation schedule\'s {"rotate": true, "trustStoreArn": …}');

    const kube = schedulerSecretPorts(await kubeConfigFromEnvironment(env), {
      namespace: envString(env, 'SCHEDULER_NAMESPACE'),
      deployment: envString(env, 'SCHEDULER_NAME'),
      secret: envString(env, 'SCHEDULER_TLS_SECRET'),
    });
    const trustStoreArn = isScheduled(event) ? event.trustStoreArn : undefined;
    try {
      const outcome = await rotateCertificates(
        {
          bundles,
          certificates,
          ...kube,
          ...(trustStoreArn === undefined ? {} : { updateTrustStore: (version: string) => modifyTrustStore(call, region, trustStoreArn, bucket, CLIENT_CA_BUNDLE_KEY, version) }),
        },
        {
          now: new Date(),
          policy: DEFAULT_ROTATION_POLICY,
          serverNames: { dnsNames: [envString(env, 'SERVER_DNS_NAME')] },
          // A new stack always starts from a fresh generation.
          force: isCustomResource(event) ? mustReissue(event) : event.force === true || event.revokePrevious === true,
          revokePrevious: !isCustomResource(event) && event.revokePrevious === true,
          serverOnly: isCustomResource(event) && event.RequestType === 'Update',
        },
      );
      console.log(JSON.stringify({ message: outcome.rotated ? 'extender mTLS certificates rotated' : 'extender mTLS certificates current', certificateArn: outcome.certificateArn, notAfter: outcome.notAfter }));
      return { PhysicalResourceId: PHYSICAL_ID, Data: { CertificateArn: outcome.certificateArn }, rotated: outcome.rotated };
    } catch (error) {
      throw new Error(`extender mTLS rotation failed: ${errorMessage(error)}`, { cause: error });
    }
  };
}
