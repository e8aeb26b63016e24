// The instance types Karpenter's kwok provider may launch, written in that
// provider's instance-types file format (kwok/cloudprovider/helpers.go,
// InstanceTypeOptions) from EC2's own DescribeInstanceTypes and
// DescribeInstanceTypeOfferings (moto here), so each type has its real vCPUs,
// memory, GPUs and zones, and its nodes carry the labels Karpenter's AWS
// provider writes for it.
import {
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  type _InstanceType,
  type EC2Client,
  type InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { toGpuInfo } from '../../lambdas/aws/instance-type-gpu-info';
import { desiredGpuLabels, KARPENTER_GPU_LABEL } from '../../lambdas/labeler/gpu-labels';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { LOCAL_AWS_REGION } from '../aws/moto';

/**
 * us-east-1 Linux on-demand prices (USD per hour) from the EC2 On-Demand
 * pricing page (P4d and P5 after AWS's June 2025 reduction). moto serves no
 * Pricing API, so they are kept here; Karpenter only compares them, to launch
 * the cheapest type that fits.
 */
export const ON_DEMAND_PRICE_USD: Readonly<Record<string, number>> = {
  'g5.xlarge': 1.006,
  'g5.2xlarge': 1.212,
  'g5.12xlarge': 5.672,
  'g5.48xlarge': 16.288,
  'g6e.xlarge': 1.861,
  'g6e.12xlarge': 10.493,
  'p4d.24xlarge': 21.958,
  'p5.48xlarge': 55.04,
};

/** The GPU instance types the Karpenter e2e tests offer: A10G, L40S, A100 40 GB and H100. */
export const DEFAULT_KARPENTER_INSTANCE_TYPES = ['g5.xlarge', 'g5.12xlarge', 'g6e.xlarge', 'p4d.24xlarge', 'p5.48xlarge'] as const;

/** Karpenter's AWS provider labels besides the GPU ones (karpenter-provider-aws pkg/apis/v1/labels.go). */
export const KARPENTER_AWS_LABEL = {
  category: 'karpenter.k8s.aws/instance-category',
  family: 'karpenter.k8s.aws/instance-family',
  generation: 'karpenter.k8s.aws/instance-generation',
  size: 'karpenter.k8s.aws/instance-size',
  cpu: 'karpenter.k8s.aws/instance-cpu',
  memory: 'karpenter.k8s.aws/instance-memory',
} as const;

export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

interface NodeSelectorRequirement {
  key: string;
  operator: 'In';
  values: string[];
}

/** One entry of the kwok provider's instance-types file. */
export interface KwokInstanceType {
  name: string;
  /** Field names as the provider's Go structs spell them (no JSON tags there). */
  offerings: { Price: number; Available: boolean; Requirements: NodeSelectorRequirement[] }[];
  architecture: string;
  operatingSystems: string[];
  resources: Record<string, string>;
}

export interface KarpenterInstanceTypeSpec {
  instanceType: string;
  /** Default ON_DEMAND_PRICE_USD's entry; a type without one is an error. */
  pricePerHour?: number;
  /** Default: us-east-1a/b/c, of which those EC2 offers the type in. */
  zones?: string[];
}

/** What a node of this type reports and how it is labelled; the node stand-in in local/addons/karpenter.ts reads it. */
export interface KarpenterInstanceType {
  kwok: KwokInstanceType;
  /** The labels Karpenter's AWS provider writes for the type (GPU and instance ones). */
  labels: Record<string, string>;
  /** Capacity a kubelet with NVIDIA's device plugin reports: cpu, memory, pods, nvidia.com/gpu. */
  capacity: Record<string, string>;
}

const MAX_PODS = '110';

/** `p4d.24xlarge` → category p, family p4d, generation 4, size 24xlarge, as Karpenter's AWS provider splits names. */
function nameParts(instanceType: string): { category: string; family: string; generation: string; size: string } {
  const match = /^([a-z]+)(\d+)([a-z0-9-]*)\.([a-z0-9-]+)$/.exec(instanceType);
  if (!match?.[1] || !match[2] || match[4] === undefined) throw new Error(`${instanceType} is not an EC2 instance type name (family.size)`);
  return { category: match[1], family: `${match[1]}${match[2]}${match[3] ?? ''}`, generation: match[2], size: match[4] };
}

function architectureOf(info: InstanceTypeInfo): string {
  const architectures = info.ProcessorInfo?.SupportedArchitectures ?? [];
  if (architectures.includes('x86_64')) return 'amd64';
  if (architectures.includes('arm64')) return 'arm64';
  throw new Error(`${info.InstanceType} supports no architecture Kubernetes nodes run (${architectures.join(', ') || 'none reported'})`);
}

async function offeredZones(ec2: EC2Client, instanceType: string): Promise<Set<string>> {
  const { InstanceTypeOfferings } = await ec2.send(
    new DescribeInstanceTypeOfferingsCommand({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: [instanceType] }],
    }),
  );
  return new Set((InstanceTypeOfferings ?? []).flatMap((offering) => (offering.Location ? [offering.Location] : [])));
}

/** Reads each type from EC2 and turns it into the kwok provider's entry, labels and node capacity. */
export async function describeKarpenterInstanceTypes(ec2: EC2Client, specs: readonly KarpenterInstanceTypeSpec[]): Promise<KarpenterInstanceType[]> {
  if (specs.length === 0) throw new Error('Karpenter needs at least one instance type to launch');
  const names = specs.map((spec) => spec.instanceType);
  const { InstanceTypes } = await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: names as _InstanceType[] }));
  const described = new Map((InstanceTypes ?? []).map((info) => [info.InstanceType ?? '', info]));
  return Promise.all(
    specs.map(async (spec) => {
      const info = described.get(spec.instanceType);
      const vcpus = info?.VCpuInfo?.DefaultVCpus;
      const memoryMiB = info?.MemoryInfo?.SizeInMiB;
      if (!info || !vcpus || !memoryMiB) throw new Error(`EC2 (DescribeInstanceTypes) does not know instance type ${spec.instanceType}`);
      const price = spec.pricePerHour ?? ON_DEMAND_PRICE_USD[spec.instanceType];
      if (price === undefined) throw new Error(`no on-demand price for ${spec.instanceType}: pass pricePerHour or add it to ON_DEMAND_PRICE_USD`);
      const offered = await offeredZones(ec2, spec.instanceType);
      const wanted = spec.zones ?? ['a', 'b', 'c'].map((suffix) => `${LOCAL_AWS_REGION}${suffix}`);
      const zones = wanted.filter((zone) => offered.has(zone));
      if (zones.length === 0) throw new Error(`EC2 offers ${spec.instanceType} in none of ${wanted.join(', ')} (DescribeInstanceTypeOfferings)`);

      const gpuInfo = toGpuInfo(spec.instanceType, info.GpuInfo);
      const allGpuLabels = desiredGpuLabels(gpuInfo, { karpenterLabels: true, gfdLabels: false, manufacturers: ['NVIDIA'] });
      const karpenterKeys = new Set<string>(Object.values(KARPENTER_GPU_LABEL));
      const gpuLabels = Object.fromEntries(Object.entries(allGpuLabels).filter(([key]) => karpenterKeys.has(key)));
      const parts = nameParts(spec.instanceType);
      const labels: Record<string, string> = {
        [KARPENTER_AWS_LABEL.category]: parts.category,
        [KARPENTER_AWS_LABEL.family]: parts.family,
        [KARPENTER_AWS_LABEL.generation]: parts.generation,
        [KARPENTER_AWS_LABEL.size]: parts.size,
        [KARPENTER_AWS_LABEL.cpu]: String(vcpus),
        [KARPENTER_AWS_LABEL.memory]: String(memoryMiB),
        ...gpuLabels,
      };
      const gpuCount = gpuLabels[KARPENTER_GPU_LABEL.count];
      const capacity: Record<string, string> = {
        cpu: String(vcpus),
        memory: `${memoryMiB}Mi`,
        pods: MAX_PODS,
        ...(gpuCount ? { [GPU_RESOURCE]: gpuCount } : {}),
      };
      // The kwok provider has no per-type labels of its own beyond name, zone
      // and capacity type, but copies each single-valued offering requirement
      // onto the node and treats its key as well known, so Karpenter's
      // scheduler matches pods' affinities on these labels against the types.
      const labelRequirements = Object.entries(labels).map(([key, value]): NodeSelectorRequirement => ({ key, operator: 'In', values: [value] }));
      const kwok: KwokInstanceType = {
        name: spec.instanceType,
        offerings: zones.map((zone) => ({
          Price: price,
          Available: true,
          Requirements: [
            { key: CAPACITY_TYPE_LABEL, operator: 'In', values: ['on-demand'] },
            { key: ZONE_LABEL, operator: 'In', values: [zone] },
            ...labelRequirements,
          ],
        })),
        architecture: architectureOf(info),
        operatingSystems: ['linux'],
        resources: capacity,
      };
      return { kwok, labels, capacity };
    }),
  );
}
