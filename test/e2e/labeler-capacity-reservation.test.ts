// The labeler labels a node by the Capacity Reservation its instance runs in:
// the real labeler (its least-privilege identity, under the write-limit
// admission policy) against moto and the real kube-apiserver. moto 5.2 serves
// neither DescribeCapacityReservations nor an instance's
// CapacityReservationId, so the AWS fault proxy's stand-in
// (local/proxies/ec2-capacity-reservations.ts) answers the first and adds the
// second to moto's DescribeInstances; the instances themselves are moto's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';
import { createEc2CapacityReservations, type Ec2CapacityReservations } from '../../local/proxies/ec2-capacity-reservations';
import { buildLabeler, capacityLabelsOf, gpuLabelsOf, scheduledEvent, stateChangeEvent } from './labeler-support';
import { CAPACITY_LABEL } from '../../lambdas/scheduling/keys';

const h = e2eHarness();
const created: GpuNode[] = [];
let proxy: AwsFaultProxy;
let reservations: Ec2CapacityReservations;

/** The labeler with EC2 behind the proxy (moto and the reservation stand-in). */
const labeler = () => buildLabeler({ ...h, info: { ...h.info, motoUrl: proxy.url } });
const HOUR_MS = 3_600_000;
/** A whole second, as EC2 reports reservation ends. */
const wholeSecond = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

async function node(instanceType: string, labels: Record<string, string> = {}): Promise<GpuNode> {
  const made = await createGpuNode(h.nodeClients, { instanceType, labels });
  created.push(made);
  return made;
}

const labelsOf = async (made: GpuNode): Promise<Record<string, string>> => {
  const read = await h.core.readNode({ name: made.name });
  return { ...gpuLabelsOf(read), ...capacityLabelsOf(read) };
};

beforeAll(async () => {
  reservations = createEc2CapacityReservations();
  proxy = await startAwsFaultProxy({ target: h.info.motoUrl, standIn: reservations });
});

afterAll(async () => {
  for (const made of created) await deleteGpuNode(h.nodeClients, made).catch(() => undefined);
  await proxy?.stop();
});

describe('capacity reservation labels', () => {
  it('labels a Capacity Block instance reserved with its end, and a plain on-demand instance on-demand with no end', async () => {
    const end = wholeSecond(Date.now() + 3 * HOUR_MS);
    const block = await node('p5.48xlarge');
    reservations.put({ id: 'cr-0b10c000000000001', reservationType: 'capacity-block', instanceType: 'p5.48xlarge', endDate: end, totalInstanceCount: 1 });
    reservations.place(block.instanceId, 'cr-0b10c000000000001');
    const plain = await node('g5.xlarge');

    const run = labeler();
    expect(await run.handler(stateChangeEvent(block.instanceId))).toMatchObject({ result: 'labeled' });
    expect(run.ec2Calls).toContain('DescribeCapacityReservationsCommand');
    expect(await labelsOf(block)).toMatchObject({
      'gpu.nvidia.com/model': 'H100',
      [CAPACITY_LABEL.capacityType]: 'reserved',
      [CAPACITY_LABEL.reservationType]: 'capacity-block',
      [CAPACITY_LABEL.reservationEnd]: String(end.getTime() / 1000),
    });

    const callsBefore = run.ec2Calls.length;
    expect(await run.handler(stateChangeEvent(plain.instanceId))).toMatchObject({ result: 'labeled' });
    // No reservation, no DescribeCapacityReservations.
    expect(run.ec2Calls.slice(callsBefore)).not.toContain('DescribeCapacityReservationsCommand');
    const plainLabels = await labelsOf(plain);
    expect(plainLabels[CAPACITY_LABEL.capacityType]).toBe('on-demand');
    expect(plainLabels[CAPACITY_LABEL.reservationEnd]).toBeUndefined();
    expect(plainLabels[CAPACITY_LABEL.reservationType]).toBeUndefined();
  });

  it('writes no capacity type where Karpenter states the right one, and the reconcile pass follows an ODCR whose end moves, then goes away', async () => {
    const firstEnd = wholeSecond(Date.now() + 48 * HOUR_MS);
    const odcr = await node('g6e.xlarge', { 'karpenter.sh/capacity-type': 'reserved', 'karpenter.k8s.aws/capacity-reservation-id': 'cr-0dc7000000000002' });
    reservations.put({ id: 'cr-0dc7000000000002', reservationType: 'default', instanceType: 'g6e.xlarge', endDate: firstEnd, totalInstanceCount: 2 });
    reservations.place(odcr.instanceId, 'cr-0dc7000000000002');

    const first = await labeler().handler(scheduledEvent);
    expect(first).toMatchObject({ kind: 'reconcile', failed: 0 });
    let labels = await labelsOf(odcr);
    expect(labels[CAPACITY_LABEL.capacityType]).toBeUndefined();
    expect(labels[CAPACITY_LABEL.reservationType]).toBe('default');
    expect(labels[CAPACITY_LABEL.reservationEnd]).toBe(String(firstEnd.getTime() / 1000));

    // The owner extends the reservation: the next pass writes the new end.
    const laterEnd = wholeSecond(firstEnd.getTime() + 24 * HOUR_MS);
    reservations.put({ id: 'cr-0dc7000000000002', reservationType: 'default', instanceType: 'g6e.xlarge', endDate: laterEnd, totalInstanceCount: 2 });
    const second = await labeler().handler(scheduledEvent);
    if (second.kind !== 'reconcile') throw new Error('expected a reconcile summary');
    expect(second.labeledNodes).toContain(odcr.name);
    expect((await labelsOf(odcr))[CAPACITY_LABEL.reservationEnd]).toBe(String(laterEnd.getTime() / 1000));

    // Then makes it unlimited: the end label goes, the type stays.
    reservations.put({ id: 'cr-0dc7000000000002', reservationType: 'default', instanceType: 'g6e.xlarge', endDate: undefined, totalInstanceCount: 2 });
    const third = await labeler().handler(scheduledEvent);
    expect(third).toMatchObject({ kind: 'reconcile', failed: 0 });
    labels = await labelsOf(odcr);
    expect(labels[CAPACITY_LABEL.reservationEnd]).toBeUndefined();
    expect(labels[CAPACITY_LABEL.reservationType]).toBe('default');

    // A reservation EC2 no longer knows (cancelled): its labels go, the pass does not fail.
    reservations.remove('cr-0dc7000000000002');
    const fourth = await labeler().handler(scheduledEvent);
    expect(fourth).toMatchObject({ kind: 'reconcile', failed: 0 });
    labels = await labelsOf(odcr);
    expect(labels[CAPACITY_LABEL.reservationType]).toBeUndefined();
    expect(labels['gpu.nvidia.com/model']).toBe('L40S');
  });

  it('labels reserved where EKS Auto Mode says on-demand for an instance in an open ODCR', async () => {
    const auto = await node('g6e.xlarge', { 'karpenter.sh/capacity-type': 'on-demand', 'eks.amazonaws.com/compute-type': 'auto' });
    reservations.put({ id: 'cr-0a070000000000003', reservationType: 'default', instanceType: 'g6e.xlarge', endDate: undefined, totalInstanceCount: 4 });
    reservations.place(auto.instanceId, 'cr-0a070000000000003');
    expect(await labeler().handler(stateChangeEvent(auto.instanceId))).toMatchObject({ result: 'labeled' });
    const labels = await labelsOf(auto);
    expect(labels[CAPACITY_LABEL.capacityType]).toBe('reserved');
    expect(labels[CAPACITY_LABEL.reservationType]).toBe('default');
    expect(labels[CAPACITY_LABEL.reservationEnd]).toBeUndefined();
  });
});
