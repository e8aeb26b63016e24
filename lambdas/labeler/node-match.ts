import type { V1Node } from '@kubernetes/client-node';

/** The EC2 instance id of an EKS node's providerID (`aws:///<az>/<instance-id>`), if it is one. */
export function instanceIdFromProviderId(providerID: string | undefined): string | undefined {
  if (!providerID?.startsWith('aws://')) return undefined;
  const last = providerID.slice(providerID.lastIndexOf('/') + 1);
  return /^i-[0-9a-f]+$/.test(last) ? last : undefined;
}

export function providerIdFor(availabilityZone: string, instanceId: string): string {
  return `aws:///${availabilityZone}/${instanceId}`;
}

export interface InstanceIdentity {
  readonly instanceId: string;
  readonly privateDnsName: string;
}

/**
 * The node backed by this instance: by providerID first; by private DNS name
 * (node name or InternalDNS/Hostname address) only for nodes that have no
 * providerID yet, since a stale node with a reused IP-based name but another
 * instance's providerID must not get this instance's labels.
 */
export function findNodeForInstance(nodes: Iterable<V1Node>, instance: InstanceIdentity): V1Node | undefined {
  let byDnsName: V1Node | undefined;
  for (const node of nodes) {
    const providerID = node.spec?.providerID;
    if (providerID) {
      if (instanceIdFromProviderId(providerID) === instance.instanceId) return node;
      continue;
    }
    if (byDnsName === undefined && instance.privateDnsName !== '' && nodeDnsNames(node).includes(instance.privateDnsName)) {
      byDnsName = node;
    }
  }
  return byDnsName;
}

/** The node's name and its InternalDNS/Hostname addresses. */
export function nodeDnsNames(node: V1Node): string[] {
  const names = node.metadata?.name ? [node.metadata.name] : [];
  for (const address of node.status?.addresses ?? []) {
    if (address.type === 'InternalDNS' || address.type === 'Hostname') names.push(address.address);
  }
  return names;
}

/** True when an instance's tags say it belongs to this EKS cluster (managed node groups, Karpenter, eksctl, self-managed). */
export function isTaggedForCluster(tags: Readonly<Record<string, string>>, clusterName: string): boolean {
  return (
    `kubernetes.io/cluster/${clusterName}` in tags ||
    tags['eks:cluster-name'] === clusterName ||
    tags['aws:eks:cluster-name'] === clusterName ||
    tags['eks:eks-cluster-name'] === clusterName
  );
}
