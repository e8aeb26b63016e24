import type { EC2Client, Instance } from '@aws-sdk/client-ec2';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';

/** The instance facts the labeler and reconciler need. */
export interface InstanceSummary {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  /** e.g. `ip-10-0-1-23.ec2.internal`; empty before the instance has a private IP. */
  readonly privateDnsName: string;
  /** pending | running | shutting-down | terminated | stopping | stopped */
  readonly state: string;
  readonly tags: Readonly<Record<string, string>>;
  /** The Capacity Reservation the instance runs in (an ODCR or a Capacity Block), if any. */
  readonly capacityReservationId?: string;
  /** EC2's InstanceLifecycle: `spot`, `capacity-block`, `scheduled`; absent for on-demand. */
  readonly lifecycle?: string;
}

/**
 * A filter takes at most 200 values. Filtering (instead of InstanceIds) means
 * an id that no longer exists is simply absent instead of failing the whole
 * call with InvalidInstanceID.NotFound.
 */
export const INSTANCE_IDS_PER_CALL = 200;

/** DescribeInstances for many ids: one call per 200 ids (plus pages). */
export async function describeInstances(ec2: EC2Client, instanceIds: readonly string[]): Promise<Map<string, InstanceSummary>> {
  const found = await describeInstancesByFilter(ec2, 'instance-id', instanceIds);
  return new Map(found.map((instance) => [instance.instanceId, instance]));
}

/**
 * DescribeInstances for many private DNS names (nodes that have no providerID
 * yet); keyed by DNS name. When several instances had the name over time, a
 * live one wins over a terminated one.
 */
export async function describeInstancesByPrivateDnsName(
  ec2: EC2Client,
  dnsNames: readonly string[],
): Promise<Map<string, InstanceSummary>> {
  const byName = new Map<string, InstanceSummary>();
  for (const instance of await describeInstancesByFilter(ec2, 'private-dns-name', dnsNames)) {
    const previous = byName.get(instance.privateDnsName);
    if (previous === undefined || isGone(previous.state)) byName.set(instance.privateDnsName, instance);
  }
  return byName;
}

function isGone(state: string): boolean {
  return state === 'terminated' || state === 'shutting-down';
}

async function describeInstancesByFilter(ec2: EC2Client, filterName: string, values: readonly string[]): Promise<InstanceSummary[]> {
  const unique = [...new Set(values)].filter((v) => v !== '');
  const found: InstanceSummary[] = [];
  for (let i = 0; i < unique.length; i += INSTANCE_IDS_PER_CALL) {
    const batch = unique.slice(i, i + INSTANCE_IDS_PER_CALL);
    let nextToken: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeInstancesCommand({ Filters: [{ Name: filterName, Values: batch }], MaxResults: 1000, NextToken: nextToken }),
      );
      for (const reservation of page.Reservations ?? []) {
        for (const instance of reservation.Instances ?? []) {
          const summary = toInstanceSummary(instance);
          if (summary) found.push(summary);
        }
      }
      nextToken = page.NextToken;
    } while (nextToken);
  }
  return found;
}

export async function describeInstance(ec2: EC2Client, instanceId: string): Promise<InstanceSummary | undefined> {
  return (await describeInstances(ec2, [instanceId])).get(instanceId);
}

export function toInstanceSummary(instance: Instance): InstanceSummary | undefined {
  if (!instance.InstanceId || !instance.InstanceType) return undefined;
  const tags: Record<string, string> = {};
  for (const tag of instance.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  return {
    instanceId: instance.InstanceId,
    instanceType: instance.InstanceType,
    availabilityZone: instance.Placement?.AvailabilityZone ?? '',
    privateDnsName: instance.PrivateDnsName ?? '',
    state: instance.State?.Name ?? 'unknown',
    tags,
    ...(instance.CapacityReservationId ? { capacityReservationId: instance.CapacityReservationId } : {}),
    ...(instance.InstanceLifecycle ? { lifecycle: instance.InstanceLifecycle } : {}),
  };
}
