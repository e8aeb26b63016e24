// DescribeCapacityReservations through the real SDK, answered by the AWS
// fault proxy's reservation stand-in in EC2's XML (moto serves no such call;
// nothing here reaches an upstream).
import { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCapacityReservations, RESERVATION_IDS_PER_CALL } from '../../../../lambdas/aws/capacity-reservations';
import { awsClientConfig } from '../../../../local/aws/moto';
import { startAwsFaultProxy, type AwsFaultProxy } from '../../../../local/proxies/aws-fault-proxy';
import { createEc2CapacityReservations } from '../../../../local/proxies/ec2-capacity-reservations';

const reservations = createEc2CapacityReservations();
let proxy: AwsFaultProxy;
let ec2: EC2Client;
const END = new Date('2026-06-01T11:00:00Z');
const id = (i: number): string => `cr-${i.toString(16).padStart(17, '0')}`;

beforeAll(async () => {
  // Port 9 (discard): a call the stand-in did not answer would fail loudly.
  proxy = await startAwsFaultProxy({ target: 'http://127.0.0.1:9', standIn: reservations });
  ec2 = new EC2Client({ ...awsClientConfig(proxy.url), maxAttempts: 1 });
  for (let i = 1; i <= 150; i++) {
    reservations.put({ id: id(i), reservationType: i % 2 === 0 ? 'capacity-block' : 'default', instanceType: 'p5.48xlarge', endDate: i % 2 === 0 ? END : undefined, totalInstanceCount: 1 });
  }
});

afterAll(async () => {
  ec2?.destroy();
  await proxy?.stop();
});

const describeCalls = (): number => proxy.calls.filter((c) => c.action === 'DescribeCapacityReservations').length;

describe('describeCapacityReservations', () => {
  it('asks 100 ids a call and reads type, end and counts', async () => {
    const before = describeCalls();
    const found = await describeCapacityReservations(ec2, Array.from({ length: 150 }, (_, i) => id(i + 1)).concat(id(2), ''));
    expect(describeCalls() - before).toBe(Math.ceil(150 / RESERVATION_IDS_PER_CALL));
    expect(found.size).toBe(150);
    expect(found.get(id(2))).toMatchObject({ reservationType: 'capacity-block', endDate: END, instanceType: 'p5.48xlarge', totalInstanceCount: 1, state: 'active' });
    expect(found.get(id(3))).toMatchObject({ reservationType: 'default', endDate: undefined });
  });

  it('leaves out an id EC2 does not know, asking its batch id by id, and keeps the others', async () => {
    const before = describeCalls();
    const found = await describeCapacityReservations(ec2, [id(1), 'cr-00000000000ffffff', id(2)]);
    // The batch once, then each of its 3 ids.
    expect(describeCalls() - before).toBe(4);
    expect([...found.keys()].sort()).toEqual([id(1), id(2)]);
  });
});
