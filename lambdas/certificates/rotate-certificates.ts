// One run of the certificate rotation: a state machine whose progress is
// recorded (rotation-record.ts) before each step, so that a run that fails
// anywhere is resumed by the next one, and whose steps can each run twice
// harmlessly. The order keeps the scheduler able to call the extender at
// every step:
// 1. the trust store gets the new client CA (beside the old one) and is
//    waited for until it is active, before any client presents a
//    certificate that CA signed;
// 2. the scheduler's Secret gets the new client certificate and a caFile with
//    the new server CA (beside the old one), and the scheduler is restarted
//    and waited for, so it trusts the new server certificate before the ALB
//    presents it;
// 3. only then ACM's server certificate is replaced (re-imported in place, so
//    the listener keeps its ARN).
// A rotation is due when any certificate the path uses is inside the renewal
// window or does not fit the others: the client certificate in the Secret,
// the CA the trust store holds for it, the server certificate in ACM and the
// CA the scheduler's caFile holds for it. No key is kept between runs (nor any
// CA key at all): a step that needs a key a failed run made issues a new one,
// and the CA of the lost one is taken out of its bundle again.
import type { BundleStore, ServerCertificateStore, StoredCertificate, TrustStorePort } from './aws-stores';
import { readRecord, writeRecord, type RotationInProgress, type RotationRecord, type RotationStep } from './rotation-record';
import {
  fingerprintOf,
  issueClientSide,
  issueServerSide,
  issuingCaIn,
  mergeBundle,
  namesAll,
  notAfterOf,
  rotationDue,
  withoutCas,
  type IssuedSide,
  type RotationPolicy,
  type ServerNames,
} from './rotation';

export { STATE_KEY } from './rotation-record';

export const CLIENT_CA_BUNDLE_KEY = 'extender-mtls/client-ca-bundle.pem';

/** What the scheduler's Secret holds: `tls.crt`, `tls.key`, `ca.crt`. */
export interface SchedulerTls {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly caBundlePem: string;
}

export interface RotationPorts {
  readonly bundles: BundleStore;
  readonly certificates: ServerCertificateStore;
  /**
   * The ALB's trust store: a port when this run can change it; `not-created`
   * before the stack has made it (it reads the latest bundle when it is
   * created); undefined when it exists but this run cannot name it (a
   * deploy-time run: the trust store is created after the function).
   */
  readonly trustStore: TrustStorePort | 'not-created' | undefined;
  readonly readSchedulerTls: () => Promise<SchedulerTls | undefined>;
  readonly writeSchedulerTls: (tls: SchedulerTls) => Promise<void>;
  /** Restarts the scheduler's pods and waits until the new ones are available; nothing to do when it does not exist yet. */
  readonly restartScheduler: () => Promise<void>;
}

export interface RotationOptions {
  readonly now: Date;
  readonly policy: RotationPolicy;
  /** What the server certificate names: the ALB's DNS name. */
  readonly serverNames: ServerNames;
  /** Start a rotation of both sides even when nothing is due. */
  readonly force?: boolean;
  /** Also drop every earlier CA from both bundles (a leaked key). */
  readonly revokePrevious?: boolean;
  /** Told each step as it starts: its name and what it is about (ARNs, versions, fingerprints; never a key). */
  readonly onStep?: (step: RotationStep, detail: Readonly<Record<string, string>>) => void;
}

export interface RotationOutcome {
  /** A rotation finished in this run. */
  readonly rotated: boolean;
  readonly certificateArn: string;
  /** When the server certificate ends. */
  readonly notAfter: string;
  /** Why a rotation ran (or is still due). */
  readonly reasons: readonly string[];
  /** Left for a run that can reach the trust store: a deploy-time run cannot replace the client side. */
  readonly deferred: boolean;
}

type Side = 'client' | 'server';
interface Reason {
  readonly side: Side;
  readonly text: string;
}

/** What each store holds right now. */
interface Observed {
  readonly secret: SchedulerTls | undefined;
  readonly server: StoredCertificate | undefined;
  /** The bundle's latest version. */
  readonly latestBundle: string | undefined;
  /** The bundle the trust store serves: the version it was last pointed at, else the latest. */
  readonly activeBundle: string | undefined;
}

async function observe(ports: RotationPorts, record: RotationRecord): Promise<Observed> {
  const [secret, server, latestBundle] = await Promise.all([
    ports.readSchedulerTls(),
    record.certificateArn === undefined ? Promise.resolve(undefined) : ports.certificates.readCertificate(record.certificateArn),
    ports.bundles.get(CLIENT_CA_BUNDLE_KEY),
  ]);
  const activeBundle = record.trustStoreVersion === undefined || record.trustStoreVersion === '' ? latestBundle : await ports.bundles.get(CLIENT_CA_BUNDLE_KEY, record.trustStoreVersion);
  return { secret, server, latestBundle, activeBundle };
}

const day = (pem: string | undefined): string => notAfterOf(pem)?.toISOString().slice(0, 10) ?? 'an unreadable date';
const describeNames = (names: ServerNames): string => [...(names.dnsNames ?? []), ...(names.ipAddresses ?? [])].join(', ');

/** Every reason a certificate of the path must be replaced, by side. */
function dueReasons(view: Observed, now: Date, policy: RotationPolicy, names: ServerNames): Reason[] {
  const reasons: Reason[] = [];
  const clientCert = view.secret?.certificatePem;
  if (clientCert === undefined) reasons.push({ side: 'client', text: 'the scheduler Secret holds no client certificate' });
  else if (rotationDue(clientCert, now, policy)) reasons.push({ side: 'client', text: `the client certificate ends ${day(clientCert)}` });
  else {
    const ca = issuingCaIn(clientCert, view.activeBundle);
    if (ca === undefined) reasons.push({ side: 'client', text: "the trust store does not hold the client certificate's CA" });
    else if (rotationDue(ca.pem, now, policy)) reasons.push({ side: 'client', text: `the trust store's CA of the client certificate ends ${day(ca.pem)}` });
  }
  const serverCert = view.server?.certificatePem;
  if (serverCert === undefined) reasons.push({ side: 'server', text: 'ACM holds no server certificate' });
  else if (rotationDue(serverCert, now, policy)) reasons.push({ side: 'server', text: `the server certificate ends ${day(serverCert)}` });
  else if (!namesAll(serverCert, names)) reasons.push({ side: 'server', text: `the server certificate does not name ${describeNames(names)}` });
  else {
    const ca = issuingCaIn(serverCert, view.secret?.caBundlePem);
    if (ca === undefined) reasons.push({ side: 'server', text: "the scheduler's ca.crt does not hold the server certificate's CA" });
    else if (rotationDue(ca.pem, now, policy)) reasons.push({ side: 'server', text: `the scheduler's CA of the server certificate ends ${day(ca.pem)}` });
  }
  return reasons;
}

/** The plan of the rotation to run: the one in progress (widened by what is due now), or a new one. */
function planOf(record: RotationRecord, reasons: readonly Reason[], options: RotationOptions): RotationInProgress | undefined {
  const forced = options.force === true || options.revokePrevious === true;
  const due = (side: Side): boolean => forced || reasons.some((reason) => reason.side === side);
  const texts = [...(forced ? ['forced'] : []), ...reasons.map((reason) => reason.text)];
  const running = record.inProgress;
  if (running !== undefined) {
    return { ...running, client: running.client || due('client'), server: running.server || due('server'), revokePrevious: running.revokePrevious || options.revokePrevious === true };
  }
  if (texts.length === 0) return undefined;
  return { startedAt: options.now.toISOString(), reasons: texts, client: due('client'), server: due('server'), revokePrevious: options.revokePrevious === true, step: 'client-ca-bundle' };
}

/**
 * Rotates what is due (everything with `force`), or resumes the rotation a
 * failed run left, or reports the certificates in place. Throws at the first
 * step that fails; the record then names that step and the next run resumes.
 */
export async function rotateCertificates(ports: RotationPorts, options: RotationOptions): Promise<RotationOutcome> {
  const { now, policy, serverNames } = options;
  let record = await readRecord(ports.bundles);
  const view = await observe(ports, record);
  const reasons = dueReasons(view, now, policy, serverNames);
  let plan = planOf(record, reasons, options);
  if (plan === undefined) {
    return { rotated: false, certificateArn: record.certificateArn ?? '', notAfter: record.notAfter ?? notAfterOf(view.server?.certificatePem)?.toISOString() ?? '', reasons: [], deferred: false };
  }
  const save = async (next: RotationInProgress | undefined, changes: Partial<RotationRecord> = {}): Promise<void> => {
    const { inProgress: _previous, ...rest } = { ...record, ...changes };
    record = next === undefined ? rest : { ...rest, inProgress: next };
    await writeRecord(ports.bundles, record);
  };
  const start = async (step: RotationStep, changes: Partial<RotationInProgress> = {}, detail: Record<string, string> = {}): Promise<void> => {
    plan = { ...(plan as RotationInProgress), ...changes, step };
    options.onStep?.(step, detail);
    await save(plan);
  };

  // Done by an earlier run: the Secret holds a certificate of the client CA
  // this rotation introduced and the trust store serves that CA; ACM holds a
  // certificate of the server CA it introduced.
  const clientDone = plan.clientCa !== undefined && issuingCaIn(view.secret?.certificatePem, view.activeBundle)?.fingerprint === plan.clientCa;
  const serverDone = plan.serverCa !== undefined && issuingCaIn(view.server?.certificatePem, view.secret?.caBundlePem)?.fingerprint === plan.serverCa;
  const clientDeferred = plan.client && !clientDone && ports.trustStore === undefined;

  // 1. The client CA into the bundle and the trust store.
  let newClient: IssuedSide | undefined;
  if (plan.client && !clientDone && ports.trustStore !== undefined) {
    newClient = issueClientSide(now, policy);
    const clientCa = fingerprintOf(newClient.caPem);
    // A CA a failed run put there signed a certificate whose key is gone: it leaves again.
    const kept = plan.revokePrevious ? undefined : withoutCas(view.latestBundle ?? '', plan.clientCa === undefined ? [] : [plan.clientCa]);
    await start('client-ca-bundle', { clientCa }, { clientCa });
    const version = await ports.bundles.put(CLIENT_CA_BUNDLE_KEY, mergeBundle(newClient.caPem, kept, now));
    if (ports.trustStore !== 'not-created') {
      await start('trust-store', {}, { bundleVersion: version });
      await ports.trustStore.point(version);
    }
    await save(plan, { trustStoreVersion: version });
  }

  // 2. The Secret: the new client certificate, the new server CA beside the old ones.
  let newServer: IssuedSide | undefined;
  if (plan.server && !serverDone) newServer = issueServerSide(now, policy, serverNames);
  let secret = view.secret;
  if (newClient !== undefined || newServer !== undefined) {
    const client = newClient?.issued ?? (secret === undefined ? undefined : { certificatePem: secret.certificatePem, privateKeyPem: secret.privateKeyPem });
    if (client === undefined) throw new Error('the scheduler Secret holds no client certificate and this run cannot reach the trust store to issue one');
    const serverCa = newServer === undefined ? plan.serverCa : fingerprintOf(newServer.caPem);
    const caBundlePem =
      newServer === undefined
        ? (secret?.caBundlePem ?? '')
        : mergeBundle(newServer.caPem, plan.revokePrevious ? undefined : withoutCas(secret?.caBundlePem ?? '', plan.serverCa === undefined ? [] : [plan.serverCa]), now);
    await start('scheduler-secret', { ...(serverCa === undefined ? {} : { serverCa }), restartPending: true }, serverCa === undefined ? {} : { serverCa });
    secret = { ...client, caBundlePem };
    await ports.writeSchedulerTls(secret);
  }

  // 3. The scheduler rolls onto the Secret: it trusts the new server CA before ACM serves a certificate it signed.
  if (plan.restartPending === true) {
    await start('scheduler-restart');
    await ports.restartScheduler();
    plan = { ...plan, restartPending: false };
  }

  // 4. The server certificate, re-imported under the listener's ARN.
  let certificateArn = record.certificateArn;
  let serverPem = view.server?.certificatePem;
  if (newServer !== undefined) {
    await start('server-certificate', {}, certificateArn === undefined ? {} : { certificateArn });
    certificateArn = await ports.certificates.importCertificate(newServer.issued.certificatePem, newServer.issued.privateKeyPem, newServer.caPem, view.server === undefined ? undefined : certificateArn);
    serverPem = newServer.issued.certificatePem;
  }
  const notAfter = notAfterOf(serverPem)?.toISOString() ?? '';
  const finished: Partial<RotationRecord> = {
    ...(certificateArn === undefined ? {} : { certificateArn }),
    ...(newServer === undefined ? {} : { serverDnsName: serverNames.dnsNames?.[0] }),
    notAfter,
  };
  // A client side this run could not do stays in progress for the next scheduled run.
  await save(clientDeferred ? { ...plan, step: 'client-ca-bundle' } : undefined, finished);
  return { rotated: !clientDeferred, certificateArn: certificateArn ?? '', notAfter, reasons: plan.reasons, deferred: clientDeferred };
}

export interface NewEndpointOptions {
  readonly now: Date;
  readonly policy: RotationPolicy;
  readonly serverNames: ServerNames;
  /** The new ALB's DNS name. */
  readonly serverDnsName: string;
}

/**
 * A deployment replaced the ALB (a new DNS name): the new listener gets a new
 * ACM certificate naming it, while the old listener keeps serving its own
 * until CloudFormation deletes it (the old one is then retired, and deleted
 * when CloudFormation removes this resource's previous instance). The
 * scheduler's ca.crt gets the new server CA beside the old ones; its pods
 * roll onto it with their new configuration, which names the new ALB
 * (cdk/lib/scheduler/second-scheduler-manifests.ts), after this run. A run
 * for a name already served (a retry, or a rollback to the previous ALB)
 * changes nothing or takes the retired certificate back.
 */
export async function serveNewEndpoint(ports: Pick<RotationPorts, 'bundles' | 'certificates' | 'readSchedulerTls' | 'writeSchedulerTls'>, options: NewEndpointOptions): Promise<RotationOutcome> {
  const record = await readRecord(ports.bundles);
  const { serverDnsName } = options;
  const retired = record.retired ?? [];
  const previous = record.certificateArn === undefined ? [] : [{ arn: record.certificateArn, ...(record.serverDnsName === undefined ? {} : { dnsName: record.serverDnsName }) }];
  if (record.serverDnsName === serverDnsName && record.certificateArn !== undefined) {
    return { rotated: false, certificateArn: record.certificateArn, notAfter: record.notAfter ?? '', reasons: [], deferred: false };
  }
  const back = retired.find((entry) => entry.dnsName === serverDnsName);
  if (back !== undefined) {
    const stored = await ports.certificates.readCertificate(back.arn);
    if (stored !== undefined) {
      const notAfter = notAfterOf(stored.certificatePem)?.toISOString() ?? '';
      await writeRecord(ports.bundles, { ...record, certificateArn: back.arn, serverDnsName, notAfter, retired: [...retired.filter((entry) => entry !== back), ...previous] });
      return { rotated: false, certificateArn: back.arn, notAfter, reasons: [`${serverDnsName} is served by its earlier certificate again`], deferred: false };
    }
  }
  const secret = await ports.readSchedulerTls();
  if (secret === undefined) throw new Error('the scheduler Secret holds no client certificate: the first generation must exist before the ALB is replaced');
  const server = issueServerSide(options.now, options.policy, options.serverNames);
  await ports.writeSchedulerTls({ ...secret, caBundlePem: mergeBundle(server.caPem, secret.caBundlePem, options.now) });
  const certificateArn = await ports.certificates.importCertificate(server.issued.certificatePem, server.issued.privateKeyPem, server.caPem, undefined);
  const notAfter = server.notAfter.toISOString();
  await writeRecord(ports.bundles, { ...record, certificateArn, serverDnsName, notAfter, retired: [...retired, ...previous] });
  return { rotated: true, certificateArn, notAfter, reasons: [`a new load balancer, ${serverDnsName}`], deferred: false };
}

/**
 * Deletes certificates: `arns`, or for the stack's own removal the current
 * one. One a listener still serves is kept in the record and tried again by
 * the next scheduled run (deleteRetiredCertificates).
 */
export async function deleteCertificates(ports: Pick<RotationPorts, 'bundles' | 'certificates'>, arns: readonly string[]): Promise<{ readonly deleted: string[]; readonly inUse: string[] }> {
  const record = await readRecord(ports.bundles);
  const deleted: string[] = [];
  const inUse: string[] = [];
  for (const arn of arns) {
    if ((await ports.certificates.deleteCertificate(arn)) === 'deleted') deleted.push(arn);
    else inUse.push(arn);
  }
  if (deleted.length > 0) {
    const { certificateArn, ...rest } = record;
    await writeRecord(ports.bundles, {
      ...rest,
      ...(certificateArn === undefined || deleted.includes(certificateArn) ? {} : { certificateArn }),
      retired: [...(record.retired ?? []).filter((entry) => !deleted.includes(entry.arn)), ...inUse.filter((arn) => !(record.retired ?? []).some((entry) => entry.arn === arn) && arn !== certificateArn).map((arn) => ({ arn }))],
    });
  }
  return { deleted, inUse };
}

/** The certificates of replaced ALBs that are still in the record (deleted once no listener serves them). */
export async function retiredCertificateArns(bundles: BundleStore): Promise<string[]> {
  return ((await readRecord(bundles)).retired ?? []).map((entry) => entry.arn);
}
