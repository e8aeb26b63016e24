import type { V1Node } from '@kubernetes/client-node';
import type { InstanceSummary, InstanceTypeGpuInfo } from '../aws';
import { desiredGpuLabels, labelPatch } from './gpu-labels';
import { ownedNodeLabelKeys, withCapacityLabels } from './capacity-labels';
import type { LabelerDeps } from './labeler-deps';
import type { LabelerErrorKind } from './labeler-errors';
import { errorKind, LabelerError, step } from './labeler-errors';
import { mapWithConcurrency } from '../common/map-with-concurrency';
import { instanceIdFromProviderId, nodeDnsNames } from './node-match';
import { unlessNodeGone } from './node-gone';
import { removeStartupTaint } from './startup-taint';
import { errorMessage } from '../common/error-message';

export interface ReconcileSummary {
  readonly nodes: number;
  readonly labeled: number;
  readonly alreadyCorrect: number;
  /** Nodes with no live EC2 instance behind them (Fargate, other clouds, terminated), or deleted before their patch. */
  readonly skipped: number;
  readonly failed: number;
  /** Nodes whose start-up taint this run lifted (their labels were right or were just made so). */
  readonly startupTaintsRemoved: number;
  readonly errorsByKind: Readonly<Partial<Record<LabelerErrorKind, number>>>;
  /** The first few failures, for the log line. */
  readonly failures: readonly { readonly node: string; readonly kind: LabelerErrorKind; readonly message: string }[];
  /** Names of the nodes written in this run. */
  readonly labeledNodes: readonly string[];
}

const MAX_REPORTED_FAILURES = 10;

/**
 * Labels every node of the cluster: lists nodes page by page, looks up their
 * instances in batches (one DescribeInstances per 200 nodes), their types
 * once and the capacity reservations they run in (one call per 100, none
 * when no instance runs in one), then patches the nodes that need it with bounded concurrency. A node
 * that fails is counted and the rest carry on.
 */
export async function reconcileNodes(deps: LabelerDeps): Promise<ReconcileSummary> {
  const nodes: V1Node[] = [];
  await step('Kubernetes', 'listing nodes', async () => {
    for await (const page of deps.nodes.listNodePages({ pageSize: deps.config.nodePageSize })) nodes.push(...page);
  });

  const idsByNode = new Map<V1Node, string>();
  const dnsOnlyNodes: V1Node[] = [];
  for (const node of nodes) {
    const instanceId = instanceIdFromProviderId(node.spec?.providerID);
    if (instanceId !== undefined) idsByNode.set(node, instanceId);
    else if (!node.spec?.providerID) dnsOnlyNodes.push(node);
  }
  const byId = await step('Ec2', 'DescribeInstances', () => deps.instances.byIds([...idsByNode.values()]));
  const byDns =
    dnsOnlyNodes.length === 0
      ? new Map<string, InstanceSummary>()
      : await step('Ec2', 'DescribeInstances by private DNS name', () => deps.instances.byPrivateDnsNames(dnsOnlyNodes.flatMap(nodeDnsNames)));

  const work: { node: V1Node; instance: InstanceSummary }[] = [];
  for (const node of nodes) {
    const id = idsByNode.get(node);
    const instance = id !== undefined ? byId.get(id) : nodeDnsNames(node).map((n) => byDns.get(n)).find((i) => i !== undefined);
    if (instance === undefined || instance.state === 'terminated' || instance.state === 'shutting-down') continue;
    work.push({ node, instance });
  }
  const types = await step('Ec2', 'DescribeInstanceTypes', () => deps.gpuTypes.lookup(work.map((w) => w.instance.instanceType)));
  // Asked only when some instance runs in a reservation: a cluster without any makes no extra call.
  const reservationIds = [...new Set(work.flatMap((w) => (w.instance.capacityReservationId === undefined ? [] : [w.instance.capacityReservationId])))];
  const reservations =
    reservationIds.length === 0 ? new Map() : await step('Ec2', 'DescribeCapacityReservations', () => deps.reservations.byIds(reservationIds));

  const owned = ownedNodeLabelKeys(deps.config.labels);
  const results = await mapWithConcurrency(work, deps.config.reconcileConcurrency, async ({ node, instance }) => {
    const name = node.metadata?.name ?? '';
    const info: InstanceTypeGpuInfo | undefined = types.get(instance.instanceType);
    if (info === undefined) throw new LabelerError('Ec2', `DescribeInstanceTypes did not return instance type ${instance.instanceType}`);
    const labels = node.metadata?.labels;
    const reservation = instance.capacityReservationId === undefined ? undefined : reservations.get(instance.capacityReservationId);
    const patch = labelPatch(labels, withCapacityLabels(desiredGpuLabels(info, deps.config.labels), instance, reservation, labels), owned);
    const current = patch === undefined ? node : await step('Kubernetes', `patching labels of node ${name}`, () => unlessNodeGone(() => deps.nodes.patchNodeLabels(name, patch)));
    // Deleted since the listing (Spot interruption, consolidation): nothing left to label, not a failure.
    if (current === undefined) return { name, written: false, untainted: false, gone: true };
    const untainted = await step('Kubernetes', `removing the start-up taint of node ${name}`, () => removeStartupTaint(deps.nodes, current));
    return { name, written: patch !== undefined, untainted, gone: false };
  });

  let labeled = 0;
  let alreadyCorrect = 0;
  let startupTaintsRemoved = 0;
  const labeledNodes: string[] = [];
  const errorsByKind: Partial<Record<LabelerErrorKind, number>> = {};
  const failures: { node: string; kind: LabelerErrorKind; message: string }[] = [];
  let gone = 0;
  results.forEach((result, index) => {
    if (result.ok && result.value.gone) {
      gone += 1;
      return;
    }
    if (result.ok) {
      if (result.value.untainted) startupTaintsRemoved += 1;
      if (result.value.written) {
        labeled += 1;
        labeledNodes.push(result.value.name);
      } else alreadyCorrect += 1;
      return;
    }
    const kind = errorKind(result.error);
    errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
    if (failures.length < MAX_REPORTED_FAILURES) {
      failures.push({
        node: work[index]?.node.metadata?.name ?? '',
        kind,
        message: errorMessage(result.error),
      });
    }
  });
  const failed = results.length - labeled - alreadyCorrect - gone;
  return { nodes: nodes.length, labeled, alreadyCorrect, skipped: nodes.length - work.length + gone, failed, startupTaintsRemoved, errorsByKind, failures, labeledNodes };
}
