// GPU nodes as an EKS cluster would see them: an EC2 instance (in moto) and a
// Node object registered for it, with capacity and readiness set through the
// status subresource as a kubelet would (there is no kubelet here).
import {
  DescribeImagesCommand,
  DescribeInstanceTypesCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type _InstanceType,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { type CoreV1Api, type V1Node, type V1Taint } from '@kubernetes/client-node';
import { toGpuInfo, type InstanceTypeGpuInfo } from '../../lambdas/aws/instance-type-gpu-info';
import { desiredGpuLabels } from '../../lambdas/labeler/gpu-labels';
import { LOCAL_AWS_REGION } from '../aws/moto';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

export const LOCAL_CLUSTER_NAME = 'local-cluster';


export interface InstanceTypeFacts {
  instanceType: string;
  vcpus: number;
  memoryMiB: number;
  gpuCount: number;
  /** As EC2 names it: A100, H100, A10G, T4, V100 … (undefined without GPUs). */
  gpuName?: string;
  gpuMemoryMiB?: number;
  /** The same facts as the Lambdas read them (lambdas/aws). */
  gpuInfo: InstanceTypeGpuInfo;
}

export interface GpuNodeSpec {
  instanceType: string;
  /** Default us-east-1a. */
  zone?: string;
  /** Default: the instance's private DNS name, as EKS managed node groups name nodes. */
  name?: string;
  /** Extra node labels, e.g. what the labeler would write (see seedGpuLabels). */
  labels?: Record<string, string>;
  /** Also the labels our labeler writes for the instance type (seedGpuLabels), under `labels`. Default false. */
  seedLabels?: boolean;
  annotations?: Record<string, string>;
  taints?: V1Taint[];
  /** Default 110. */
  maxPods?: number;
  /** Cluster the instance is tagged for (`kubernetes.io/cluster/<name>`, `eks:cluster-name`). Default LOCAL_CLUSTER_NAME. */
  clusterName?: string;
  /**
   * Capacity/allocatable entries that replace or add to the instance type's, as a
   * configured device plugin reports them: e.g. `nvidia.com/gpu: '16'` on a
   * time-sliced node, `'56'` with MIG single, or `nvidia.com/mig-1g.5gb`.
   */
  resources?: Record<string, string>;
  /**
   * Who hands out the GPUs: NVIDIA's device plugin (`nvidia.com/gpu` in
   * allocatable) or a DRA driver (none there; see local/addons/dra-gpu-driver.ts for
   * its ResourceSlices). Default device-plugin.
   */
  gpusFrom?: 'device-plugin' | 'dra';
}

export interface GpuNode {
  name: string;
  instanceId: string;
  providerID: string;
  zone: string;
  facts: InstanceTypeFacts;
  node: V1Node;
}

export interface NodeClients {
  core: CoreV1Api;
  ec2: EC2Client;
}

/** Facts from moto's DescribeInstanceTypes (moto has p3dn.24xlarge for V100 but no p3.*). */
export async function describeInstanceType(ec2: EC2Client, instanceType: string): Promise<InstanceTypeFacts> {
  const { InstanceTypes } = await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: [instanceType as _InstanceType] }));
  const info = InstanceTypes?.[0];
  if (!info?.VCpuInfo?.DefaultVCpus || !info.MemoryInfo?.SizeInMiB) {
    throw new Error(`EC2 (moto) does not know instance type ${instanceType}`);
  }
  const gpu = info.GpuInfo?.Gpus?.[0];
  const gpuInfo = toGpuInfo(instanceType, info.GpuInfo);
  return {
    instanceType,
    vcpus: info.VCpuInfo.DefaultVCpus,
    memoryMiB: info.MemoryInfo.SizeInMiB,
    // As the labeler counts them: a fractional GPU (g6f) is one device to the node.
    gpuCount: gpuInfo.gpus.reduce((sum, g) => sum + g.count, 0),
    ...(gpu?.Name ? { gpuName: gpu.Name } : {}),
    ...(gpu?.MemoryInfo?.SizeInMiB ? { gpuMemoryMiB: gpu.MemoryInfo.SizeInMiB } : {}),
    gpuInfo,
  };
}

/**
 * The GPU labels (gpu.nvidia.com/{model,memory,count,…}) the node labeler
 * writes for this instance type with its default settings, computed by the
 * labeler's own code, for tests that need labelled nodes without running it.
 */
export function seedGpuLabels(facts: InstanceTypeFacts): Record<string, string> {
  return desiredGpuLabels(facts.gpuInfo, { karpenterLabels: false, gfdLabels: false, manufacturers: ['NVIDIA'] });
}

const amiByClient = new WeakMap<EC2Client, Promise<string>>();

async function anyImageId(ec2: EC2Client): Promise<string> {
  let pending = amiByClient.get(ec2);
  if (!pending) {
    pending = ec2.send(new DescribeImagesCommand({ Owners: ['amazon'] })).then(({ Images }) => {
      const id = Images?.find((image) => image.ImageId)?.ImageId;
      if (!id) throw new Error('moto returned no AMIs to launch instances from');
      return id;
    });
    amiByClient.set(ec2, pending);
  }
  return pending;
}

/** Launches the EC2 instance in moto, then registers its Node and marks it Ready with GPU capacity. */
export async function createGpuNode({ core, ec2 }: NodeClients, spec: GpuNodeSpec): Promise<GpuNode> {
  const zone = spec.zone ?? `${LOCAL_AWS_REGION}a`;
  const clusterName = spec.clusterName ?? LOCAL_CLUSTER_NAME;
  const facts = await describeInstanceType(ec2, spec.instanceType);
  const { Instances } = await ec2.send(
    new RunInstancesCommand({
      ImageId: await anyImageId(ec2),
      InstanceType: spec.instanceType as _InstanceType,
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: zone },
      TagSpecifications: [
        {
          ResourceType: 'instance',
          Tags: [
            { Key: `kubernetes.io/cluster/${clusterName}`, Value: 'owned' },
            { Key: 'eks:cluster-name', Value: clusterName },
          ],
        },
      ],
    }),
  );
  const instance = Instances?.[0];
  if (!instance?.InstanceId) throw new Error(`RunInstances returned no instance for ${spec.instanceType}`);
  const name = spec.name ?? instance.PrivateDnsName ?? instance.InstanceId;
  const providerID = `aws:///${zone}/${instance.InstanceId}`;

  await core.createNode({
    body: {
      metadata: {
        name,
        labels: {
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': spec.instanceType,
          'topology.kubernetes.io/zone': zone,
          'topology.kubernetes.io/region': zone.replace(/[a-z]$/, ''),
          ...(spec.seedLabels ? seedGpuLabels(facts) : {}),
          ...spec.labels,
        },
        annotations: spec.annotations ?? {},
      },
      spec: { providerID, ...(spec.taints ? { taints: spec.taints } : {}) },
    },
  });

  const resources: Record<string, string> = {
    cpu: String(facts.vcpus),
    memory: `${facts.memoryMiB}Mi`,
    pods: String(spec.maxPods ?? 110),
    'ephemeral-storage': '100Gi',
  };
  if (facts.gpuCount > 0 && spec.gpusFrom !== 'dra') resources[GPU_RESOURCE] = String(facts.gpuCount);
  Object.assign(resources, spec.resources);
  const now = new Date().toISOString();
  const node = await core.patchNodeStatus(
    {
      name,
      body: {
        status: {
          capacity: resources,
          allocatable: resources,
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'local harness node', lastHeartbeatTime: now, lastTransitionTime: now },
          ],
          addresses: [
            ...(instance.PrivateIpAddress ? [{ type: 'InternalIP', address: instance.PrivateIpAddress }] : []),
            { type: 'Hostname', address: name },
          ],
        },
      },
    },
    MERGE_PATCH_OPTIONS,
  );
  return { name, instanceId: instance.InstanceId, providerID, zone, facts, node };
}

/** Deletes the Node and terminates its instance. */
export async function deleteGpuNode({ core, ec2 }: NodeClients, node: Pick<GpuNode, 'name' | 'instanceId'>): Promise<void> {
  await core.deleteNode({ name: node.name });
  await ec2.send(new TerminateInstancesCommand({ InstanceIds: [node.instanceId] }));
}
