import { z } from 'zod';
import { karpenterSchema } from './karpenter-schema';
import { defaultGpuNodeGroups, gpuNodeGroupSchema, systemNodeGroupSchema } from './node-group-schema';
import { crossField, describeValue, flag, list, objectList, oneOf, report, reported, settings, text, type CheckContext } from './schema-rules';
import { AVAILABILITY_ZONE, CIDR, VPC_CIDR } from './value-rules';

/**
 * What provides a new cluster's GPU nodes: Karpenter, which the stack installs
 * and which launches nodes for pending pods, or managed node groups of fixed
 * instance types scaled by hand (`gpuNodeGroups`).
 */
export const NEW_CLUSTER_GPU_CAPACITY = ['karpenter', 'node-groups'] as const;
/** What provides an existing cluster's GPU nodes; the stack installs none of them (docs/karpenter.md). */
export const EXISTING_CLUSTER_GPU_CAPACITY = ['karpenter', 'auto-mode', 'node-groups'] as const;
export const ENDPOINT_ACCESS = ['private', 'public-and-private'] as const;
/** How the Lambdas reach AWS APIs (EKS, EC2, CloudWatch): through NAT, or through interface endpoints in the VPC. */
export const AWS_API_ACCESS = ['nat', 'vpc-endpoints'] as const;
export const CLUSTER_MODES = ['new', 'existing'] as const;

/** The zones of a new VPC whose zones are not named: all an environment-agnostic stack can know. */
const DEFAULT_ZONE_COUNT = 2;
/** Each zone of a new VPC gets a public /24 and a private /19 (cdk/lib/cluster/new-gpu-cluster.ts), allocated in that order. */
const PUBLIC_SUBNET_SIZE = 2 ** (32 - 24);
const PRIVATE_SUBNET_SIZE = 2 ** (32 - 19);

/** The smallest VPC prefix that holds every zone's subnets, as the CDK allocates them: the /24s first, then the /19s aligned. */
export function largestVpcPrefix(zones: number): number {
  const publicEnd = Math.ceil((zones * PUBLIC_SUBNET_SIZE) / PRIVATE_SUBNET_SIZE) * PRIVATE_SUBNET_SIZE;
  return 32 - Math.ceil(Math.log2(publicEnd + zones * PRIVATE_SUBNET_SIZE));
}

function duplicates(ctx: CheckContext<unknown>, key: string, values: unknown, why: string): void {
  if (!Array.isArray(values) || reported(ctx, key)) return;
  const seen = new Set<unknown>();
  for (const [index, value] of values.entries()) {
    if (seen.has(value)) report(ctx, [key, index], `${describeValue(value)} is listed twice; ${why}`, value);
    seen.add(value);
  }
}

/** Enough NAT gateways and VPC range for the zones. */
function checkZoneRoom(ctx: CheckContext<{ natGateways?: unknown; vpcCidr?: unknown }>, zones: number): void {
  const { natGateways, vpcCidr } = ctx.value;
  if (typeof natGateways === 'number' && natGateways > zones && !reported(ctx, 'natGateways')) {
    report(ctx, ['natGateways'], `must be an integer from 1 to ${zones}, got ${natGateways}`, natGateways);
  }
  if (typeof vpcCidr !== 'string' || reported(ctx, 'vpcCidr')) return;
  const largest = largestVpcPrefix(zones);
  if (Number(vpcCidr.split('/')[1]) > largest) {
    report(ctx, ['vpcCidr'], `must hold a public /24 and a private /19 subnet per zone: ${zones} zones need a /${largest} or larger, got ${describeValue(vpcCidr)}`, vpcCidr);
  }
}

const ZONES_ONCE = 'each zone takes one subnet (the ALB accepts one per zone)';

export const newClusterSchema = settings({
  mode: z.literal('new').meta({ description: 'Create a cluster (`new`) or attach to one (`existing`).' }),
  // An open API endpoint is never the default.
  endpointAccess: oneOf(ENDPOINT_ACCESS)
    .default('private')
    .meta({ description: 'API endpoint access. Private by default: reach it from inside the VPC (bastion, VPN, CloudShell VPC environment).' }),
  publicAccessCidrs: list(CIDR)
    .default([])
    .meta({
      allowed: 'IPv4 CIDRs; required (≥ 1) with `public-and-private`, forbidden with `private`',
      description: 'Who may reach the public endpoint. An open endpoint is never the default.',
    }),
  vpcCidr: text(VPC_CIDR)
    .default('10.0.0.0/16')
    .meta({
      allowed: 'IPv4 CIDR, /16 to /28, room for a /24 and a /19 per zone (/17 for up to 3 zones, /16 for up to 7)',
      description: 'New VPC\'s range (public /24 and private /19 subnets per zone). VPC flow logs (rejected traffic) go to CloudWatch Logs.',
    }),
  availabilityZones: list(AVAILABILITY_ZONE)
    .default([])
    .meta({
      defaultText: 'unset: the region\'s first two',
      allowed: '≥ 2 distinct zone names of the target region',
      description: 'Zones of the new VPC. The stack is environment-agnostic (no lookups), so it knows only two zones of its region unless you name them.',
    }),
  natGateways: z
    .int({ error: (issue) => `must be an integer from 1 to the number of zones, got ${describeValue(issue.input)}` })
    .min(1, { error: (issue) => `must be an integer from 1 to the number of zones, got ${describeValue(issue.input)}` })
    .default(1)
    .meta({ allowed: '1 – number of zones', description: 'NAT gateways (one per zone for zone-independent egress).' }),
  awsApiAccess: oneOf(AWS_API_ACCESS)
    .default('nat')
    .meta({
      description:
        'How the Lambdas reach the AWS APIs they call (EKS `DescribeCluster`, EC2, CloudWatch). `nat`: HTTPS to any address through the NAT gateway (their public addresses are no fixed set a rule could name). `vpc-endpoints`: interface endpoints for `eks`, `ec2` and `monitoring` with private DNS (open to the VPC range on 443), and the Lambdas\' security groups allow HTTPS only to those endpoints and to the cluster API (about USD 7 per endpoint and zone per month).',
    }),
  adminPrincipalArns: list({
    pattern: /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/,
    allowed: 'an IAM role or user ARN such as arn:aws:iam::123456789012:role/platform-admins',
  })
    .default([])
    .meta({
      allowed: 'distinct IAM role or user ARNs',
      description:
        'Operators given `AmazonEKSClusterAdminPolicy` through access entries, so they can run `kubectl`. The stack\'s deployer is **not** made an admin implicitly (EKS grants cluster-creator admin to the CloudFormation execution role, which is no human).',
    }),
  systemNodeGroup: systemNodeGroupSchema
    .prefault({})
    .meta({
      defaultText: 'see below',
      allowed: 'node group object (no `name`)',
      description: 'Runs CoreDNS, the second scheduler, add-on controllers. AMI `AL2023_x86_64_STANDARD`.',
    }),
  // Karpenter launches the GPU type a pending pod needs and removes empty
  // nodes, where a managed group keeps a fixed type running whether used or not.
  gpuCapacity: oneOf(NEW_CLUSTER_GPU_CAPACITY)
    .default('karpenter')
    .meta({
      description:
        'What provides GPU nodes. `karpenter`: the stack installs Karpenter (pinned Helm chart, Pod Identity role, node role, interruption queue, EC2NodeClass) and the NodePools of `karpenter` below, which launch GPU nodes for pending pods and remove empty ones ([karpenter.md](karpenter.md)). `node-groups`: managed node groups of fixed size (`gpuNodeGroups`).',
    }),
  karpenter: karpenterSchema
    .optional()
    .meta({ defaultText: 'see below', allowed: 'object; only with `gpuCapacity: karpenter`', description: 'The EC2NodeClass and the NodePools.' }),
  // Listed GPU groups are kept beside Karpenter (a fixed fleet while workloads
  // move to the NodePools, docs/karpenter.md); none is created by default.
  gpuNodeGroups: objectList(gpuNodeGroupSchema)
    .optional()
    .meta({
      defaultText: 'with `node-groups`: one group `gpu` of `[g5.xlarge, g5.2xlarge]`; with `karpenter`: none',
      allowed:
        'list of GPU node group objects (below; may be empty); with `karpenter`, listed groups run beside the NodePools (for moving over, [karpenter.md](karpenter.md#canary-rollout))',
      description:
        'GPU managed node groups on the AL2023 NVIDIA AMI (driver and container toolkit included): `AL2023_x86_64_NVIDIA`, or `AL2023_ARM_64_NVIDIA` for arm64 types (g5g, Grace-based types), chosen at deploy time from what EC2 says about the group\'s types.',
    }),
  gpuNodeStartupTaint: flag()
    .default(false)
    .meta({
      description:
        'GPU nodes register with the taint `gpu.nvidia.com/labels-pending=true:NoSchedule`, which the labeler lifts once their labels are right, so no pod lands on an unlabelled GPU node ([labeler.md](labeler.md#start-up-taint-optional)). The labeler lifts this taint wherever it finds it, so on an existing cluster you switch it on by adding the taint to your own node groups or Karpenter `startupTaints`.',
    }),
})
  .check(crossField((ctx) => {
    const { endpointAccess, publicAccessCidrs, availabilityZones, gpuCapacity } = ctx.value;
    if (Array.isArray(publicAccessCidrs) && !reported(ctx, 'endpointAccess', 'publicAccessCidrs')) {
      if (endpointAccess === 'private' && publicAccessCidrs.length > 0) {
        report(ctx, ['publicAccessCidrs'], 'is only allowed when cluster.endpointAccess is "public-and-private"', publicAccessCidrs);
      }
      if (endpointAccess === 'public-and-private' && publicAccessCidrs.length === 0) {
        report(
          ctx,
          ['publicAccessCidrs'],
          'must list the CIDRs allowed to reach the public endpoint when cluster.endpointAccess is "public-and-private" (an open endpoint is never the default)',
          publicAccessCidrs,
        );
      }
    }
    if (Array.isArray(availabilityZones) && availabilityZones.length === 1 && !reported(ctx, 'availabilityZones')) {
      report(ctx, ['availabilityZones'], 'must list at least 2 zones (EKS needs subnets in two), or be left out', availabilityZones);
    }
    duplicates(ctx, 'availabilityZones', availabilityZones, ZONES_ONCE);
    duplicates(ctx, 'adminPrincipalArns', ctx.value.adminPrincipalArns, 'each principal gets one access entry');
    if (Array.isArray(availabilityZones) && !reported(ctx, 'availabilityZones')) checkZoneRoom(ctx, Math.max(availabilityZones.length, DEFAULT_ZONE_COUNT));
    if (gpuCapacity !== 'karpenter' && !reported(ctx, 'gpuCapacity') && ctx.value.karpenter !== undefined) {
      report(ctx, ['karpenter'], 'is only allowed when cluster.gpuCapacity is "karpenter"');
    }
    const groups = ctx.value.gpuNodeGroups;
    if (!Array.isArray(groups)) return;
    const names = new Set<string>();
    for (const [index, group] of (groups as { name?: unknown }[]).entries()) {
      const name = typeof group === 'object' && group !== null ? group.name : undefined;
      if (typeof name !== 'string') continue;
      if (name === 'system' || names.has(name)) {
        report(ctx, ['gpuNodeGroups', index, 'name'], `"${name}" is already used; node group names must be unique and not "system"`, name);
      }
      names.add(name);
    }
  }))
  .transform(({ gpuNodeGroups, karpenter, ...cluster }) => ({
    ...cluster,
    karpenter: karpenter ?? karpenterSchema.parse({}),
    gpuNodeGroups: gpuNodeGroups ?? (cluster.gpuCapacity === 'karpenter' ? [] : defaultGpuNodeGroups()),
  }));

const SUBNET_ID = { pattern: /^subnet-[0-9a-f]{8,17}$/, allowed: 'a subnet id such as subnet-0123456789abcdef0' };

export const existingClusterDetailsSchema = settings({
  vpcId: text({ pattern: /^vpc-[0-9a-f]{8,17}$/, allowed: 'a VPC id such as vpc-0123456789abcdef0' }).meta({ allowed: '`vpc-…`', description: 'The cluster\'s VPC.' }),
  availabilityZones: list(AVAILABILITY_ZONE, 2).meta({ allowed: '≥ 2 distinct zone names', description: 'Zones of the subnets below, same order.' }),
  privateSubnetIds: list(SUBNET_ID, 2).meta({ allowed: 'one `subnet-…` per zone', description: 'Where the ALB, the Lambdas and the kubectl provider go.' }),
  clusterSecurityGroupId: text({
    pattern: /^sg-[0-9a-f]{8,17}$/,
    allowed: 'the cluster security group id (sg-...) from `aws eks describe-cluster` resourcesVpcConfig.clusterSecurityGroupId',
  }).meta({ allowed: '`sg-…`', description: 'The EKS-created cluster security group, on the control-plane ENIs and on managed nodes (see Prerequisites).' }),
  gpuCapacity: oneOf(EXISTING_CLUSTER_GPU_CAPACITY)
    .default('node-groups')
    .meta({
      description:
        'What gives the cluster its GPU nodes; the stack installs none of them (shown as the `GpuCapacity` output). `auto-mode` requires `addons.nvidiaDevicePlugin.enabled: false` (Auto Mode nodes bring their own plugin). What NodePools to write: [karpenter.md](karpenter.md).',
    }),
  installPodIdentityAgent: flag()
    .default(false)
    .meta({
      description:
        'Install the `eks-pod-identity-agent` add-on (needed by the CloudWatch agent\'s credentials; leave `false` if the cluster has it).',
    }),
}).check(crossField((ctx) => {
  const { availabilityZones, privateSubnetIds } = ctx.value;
  duplicates(ctx, 'availabilityZones', availabilityZones, ZONES_ONCE);
  duplicates(ctx, 'privateSubnetIds', privateSubnetIds, 'each subnet is in one zone');
  if (Array.isArray(availabilityZones) && Array.isArray(privateSubnetIds) && privateSubnetIds.length !== availabilityZones.length && !reported(ctx, 'privateSubnetIds', 'availabilityZones')) {
    report(ctx, ['privateSubnetIds'], `must list one subnet per availability zone (${availabilityZones.length}), got ${privateSubnetIds.length}`, privateSubnetIds);
  }
}));

const EXISTING_KEYS = Object.keys(existingClusterDetailsSchema.shape).join(', ');

const existingClusterSchema = settings({
  mode: z.literal('existing'),
  existing: existingClusterDetailsSchema.optional(),
}).check(crossField((ctx) => {
  if (ctx.value.existing === undefined) report(ctx, ['existing'], `is required when cluster.mode is "existing" (${EXISTING_KEYS})`);
}));

/** Which cluster the stack builds on: `mode` picks the keys that apply (a key of the other mode is named as such). */
export const clusterSchema = z.preprocess(
  (raw) => {
    if (raw === undefined) return { mode: 'new' };
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
    const written = raw as Record<string, unknown>;
    return written.mode === undefined ? { ...written, mode: 'new' } : written;
  },
  z.discriminatedUnion('mode', [newClusterSchema, existingClusterSchema], {
    error: (issue) => {
      const mode = typeof issue.input === 'object' && issue.input !== null ? (issue.input as { mode?: unknown }).mode : issue.input;
      return issue.code === 'invalid_union'
        ? `must be one of ${CLUSTER_MODES.map((m) => JSON.stringify(m)).join(', ')}, got ${describeValue(mode)}`
        : `must be an object, got ${describeValue(issue.input)}`;
    },
  }),
);

