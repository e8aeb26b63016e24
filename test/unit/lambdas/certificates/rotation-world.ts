// S3 (versioned), ACM, the trust store, the scheduler's Secret and its running
// pods as plain objects, for the rotation's unit tests: every call is logged,
// any call can be made to fail, and `pathWorks` says whether the scheduler's
// running pods and the ALB would complete a mutual-TLS handshake at a given time.
import { X509Certificate } from 'node:crypto';
import type { StoredCertificate } from '../../../../lambdas/certificates/aws-stores';
import { CLIENT_CA_BUNDLE_KEY, type RotationPorts, type SchedulerTls } from '../../../../lambdas/certificates/rotate-certificates';
import { issuingCaIn, namesAll } from '../../../../lambdas/certificates/rotation';

/** The calls a test can make fail. */
export type WorldCall = 'put bundle' | 'put state' | 'trust store' | 'write secret' | 'restart scheduler' | 'import';

export type TrustStoreKind = 'exists' | 'not-created' | 'unreachable';

export interface World {
  /** The ports as the current trust store kind gives them. */
  readonly ports: RotationPorts;
  /** From now on the trust store is `kind`: created by the stack after the first run, named only by the scheduled run. */
  setTrustStore(kind: TrustStoreKind): void;
  readonly steps: string[];
  /** The objects' latest versions. */
  readonly objects: Map<string, string>;
  readonly acm: Map<string, StoredCertificate & { readonly privateKeyPem: string }>;
  secret(): SchedulerTls | undefined;
  /** What the running scheduler pods read at their last start. */
  running(): SchedulerTls | undefined;
  /** The bundle the trust store serves. */
  trustStoreBundle(): string;
  /** The next call of this kind throws (`times` calls in a row). */
  failNext(call: WorldCall, times?: number): void;
  /** The listener's certificate ARN (the first one imported, as CloudFormation gives it to the listener). */
  listenerArn(): string | undefined;
  /** Whether the running scheduler and the ALB would shake hands at `at`; otherwise why not. */
  pathWorks(at: Date, serverName?: string): true | string;
}

export function createWorld(options: { trustStore?: TrustStoreKind } = {}): World {
  const steps: string[] = [];
  const versions = new Map<string, string[]>();
  const objects = new Map<string, string>();
  const acm = new Map<string, StoredCertificate & { privateKeyPem: string }>();
  const failures = new Map<WorldCall, number>();
  let secret: SchedulerTls | undefined;
  let running: SchedulerTls | undefined;
  let trustStoreVersion: string | undefined;
  let listener: string | undefined;
  let trustStoreKind: TrustStoreKind = options.trustStore ?? 'exists';

  const maybeFail = (call: WorldCall): void => {
    const left = failures.get(call) ?? 0;
    if (left > 0) {
      failures.set(call, left - 1);
      steps.push(`${call} FAILED`);
      throw new Error(`injected failure: ${call}`);
    }
  };
  const latestBundle = (): string => objects.get(CLIENT_CA_BUNDLE_KEY) ?? '';

  const trustStorePort = {
    point: (version: string) => {
      maybeFail('trust store');
      steps.push(`trust store ${version}`);
      trustStoreVersion = version;
      return Promise.resolve();
    },
  };
  const ports: Omit<RotationPorts, 'trustStore'> = {
    bundles: {
      get: (key, version) => {
        if (version === undefined) return Promise.resolve(objects.get(key));
        const list = versions.get(key) ?? [];
        return Promise.resolve(list[Number(version.slice(1)) - 1]);
      },
      put: (key, text) => {
        maybeFail(key === CLIENT_CA_BUNDLE_KEY ? 'put bundle' : 'put state');
        if (key === CLIENT_CA_BUNDLE_KEY) steps.push('put bundle');
        objects.set(key, text);
        const list = versions.get(key) ?? [];
        list.push(text);
        versions.set(key, list);
        return Promise.resolve(`v${list.length}`);
      },
    },
    certificates: {
      importCertificate: (certificatePem, privateKeyPem, chainPem, arn) => {
        maybeFail('import');
        const imported = arn ?? `arn:aws:acm:us-east-1:123456789012:certificate/${acm.size + 1}`;
        steps.push(arn === undefined ? 'import new' : 'reimport');
        acm.set(imported, { certificatePem, chainPem, privateKeyPem });
        listener ??= imported;
        return Promise.resolve(imported);
      },
      readCertificate: (arn) => {
        const stored = acm.get(arn);
        return Promise.resolve(stored === undefined ? undefined : { certificatePem: stored.certificatePem, chainPem: stored.chainPem });
      },
      deleteCertificate: (arn) => {
        if (arn === listener) return Promise.resolve('in-use');
        steps.push(`delete ${arn}`);
        acm.delete(arn);
        return Promise.resolve('deleted');
      },
    },
    readSchedulerTls: () => Promise.resolve(secret),
    writeSchedulerTls: (tls) => {
      maybeFail('write secret');
      steps.push('write secret');
      secret = tls;
      return Promise.resolve();
    },
    restartScheduler: () => {
      maybeFail('restart scheduler');
      steps.push('restart scheduler');
      running = secret;
      return Promise.resolve();
    },
  };

  const trustStoreBundle = (): string => {
    // Before a ModifyTrustStore, the trust store serves what it was created from: the latest bundle then.
    if (trustStoreVersion === undefined) return latestBundle();
    return (versions.get(CLIENT_CA_BUNDLE_KEY) ?? [])[Number(trustStoreVersion.slice(1)) - 1] ?? '';
  };

  return {
    get ports(): RotationPorts {
      return { ...ports, trustStore: trustStoreKind === 'not-created' ? 'not-created' : trustStoreKind === 'unreachable' ? undefined : trustStorePort };
    },
    setTrustStore: (kind) => {
      trustStoreKind = kind;
    },
    steps,
    objects,
    acm,
    secret: () => secret,
    running: () => running,
    trustStoreBundle,
    failNext: (call, times = 1) => failures.set(call, times),
    listenerArn: () => listener,
    pathWorks(at, serverName = 'localhost') {
      const pods = running ?? secret;
      const server = listener === undefined ? undefined : acm.get(listener);
      if (pods === undefined) return 'the scheduler has no certificate';
      if (server === undefined) return 'the listener has no certificate';
      const valid = (pem: string): boolean => {
        const cert = new X509Certificate(pem);
        return new Date(cert.validFrom) <= at && at <= new Date(cert.validTo);
      };
      const clientCa = issuingCaIn(pods.certificatePem, trustStoreBundle());
      if (!valid(pods.certificatePem)) return `the client certificate is not valid on ${at.toISOString()}`;
      if (clientCa === undefined || !valid(clientCa.pem)) return 'the trust store does not accept the client certificate';
      const serverCa = issuingCaIn(server.certificatePem, pods.caBundlePem);
      if (!valid(server.certificatePem)) return `the server certificate is not valid on ${at.toISOString()}`;
      if (serverCa === undefined || !valid(serverCa.pem)) return "the scheduler's ca.crt does not accept the server certificate";
      if (!namesAll(server.certificatePem, { dnsNames: [serverName] })) return `the server certificate does not name ${serverName}`;
      return true;
    },
  };
}
