import type { EC2Client, InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { DescribeInstanceTypesCommand } from '@aws-sdk/client-ec2';

/** One kind of GPU in an instance type (DescribeInstanceTypes GpuInfo.Gpus[]). */
export interface GpuDevice {
  /** As EC2 reports it, e.g. `A100`, `H100`, `A10G`, `T4`. */
  readonly name: string;
  /** e.g. `NVIDIA`. */
  readonly manufacturer: string;
  readonly count: number;
  /** Memory of one GPU, MiB. */
  readonly memoryMiB: number;
}

/** GPU facts of an instance type; `gpus` is empty for types without GPUs. */
export interface InstanceTypeGpuInfo {
  readonly instanceType: string;
  readonly gpus: readonly GpuDevice[];
  /** TotalGpuMemoryInMiB, or the sum over `gpus` when EC2 omits it. */
  readonly totalMemoryMiB: number;
}

export interface InstanceTypeGpuCatalog {
  /**
   * GPU info for each requested type. Types EC2 does not know are absent from
   * the result. Each type is asked of EC2 at most once per container.
   */
  lookup(instanceTypes: readonly string[]): Promise<ReadonlyMap<string, InstanceTypeGpuInfo>>;
}

/** DescribeInstanceTypes accepts at most 100 types per call. */
const TYPES_PER_CALL = 100;

/**
 * Instance-type facts never change, so the catalog caches them for the life of
 * the warm container; create it once at module scope.
 */
export function createInstanceTypeGpuCatalog(ec2: EC2Client): InstanceTypeGpuCatalog {
  const cache = new Map<string, InstanceTypeGpuInfo>();
  const unknownTypes = new Set<string>();

  return {
    async lookup(instanceTypes) {
      const missing = [...new Set(instanceTypes)].filter((t) => !cache.has(t) && !unknownTypes.has(t));
      for (const item of await describeInstanceTypes(ec2, missing)) {
        if (item.InstanceType !== undefined) cache.set(item.InstanceType, toGpuInfo(item.InstanceType, item.GpuInfo));
      }
      for (const t of missing) if (!cache.has(t)) unknownTypes.add(t);
      const result = new Map<string, InstanceTypeGpuInfo>();
      for (const t of instanceTypes) {
        const info = cache.get(t);
        if (info) result.set(t, info);
      }
      return result;
    },
  };
}

/**
 * EC2's description of each requested type, in batches of 100 and all pages.
 * By filter, so a type EC2 does not know (a typo, or not offered in this
 * region) is left out of the result instead of failing the whole call.
 */
export async function describeInstanceTypes(ec2: EC2Client, instanceTypes: readonly string[]): Promise<InstanceTypeInfo[]> {
  const found: InstanceTypeInfo[] = [];
  for (let i = 0; i < instanceTypes.length; i += TYPES_PER_CALL) {
    const batch = instanceTypes.slice(i, i + TYPES_PER_CALL);
    let nextToken: string | undefined;
    do {
      const page = await ec2.send(new DescribeInstanceTypesCommand({ Filters: [{ Name: 'instance-type', Values: [...batch] }], NextToken: nextToken }));
      found.push(...(page.InstanceTypes ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
  }
  return found;
}

interface Ec2GpuInfo {
  Gpus?: { Name?: string; Manufacturer?: string; Count?: number; LogicalGpuCount?: number; MemoryInfo?: { SizeInMiB?: number } }[];
  TotalGpuMemoryInMiB?: number;
}

/** Pure mapping from the EC2 shape; exported for unit tests. */
export function toGpuInfo(instanceType: string, gpuInfo: Ec2GpuInfo | undefined): InstanceTypeGpuInfo {
  const gpus: GpuDevice[] = [];
  for (const gpu of gpuInfo?.Gpus ?? []) {
    // A fractional GPU (g6f, gr6f: GpuPartitionSize 1/8 to 1/2) has Count 0 and
    // LogicalGpuCount 1; the node sees one GPU with the partition's memory, which
    // is what MemoryInfo holds.
    const count = gpu.Count !== undefined && gpu.Count > 0 ? gpu.Count : (gpu.LogicalGpuCount ?? 0);
    if (count <= 0 || !gpu.Name) continue;
    gpus.push({
      name: gpu.Name,
      manufacturer: gpu.Manufacturer ?? 'unknown',
      count,
      memoryMiB: gpu.MemoryInfo?.SizeInMiB ?? 0,
    });
  }
  const summed = gpus.reduce((sum, g) => sum + g.count * g.memoryMiB, 0);
  return { instanceType, gpus, totalMemoryMiB: gpuInfo?.TotalGpuMemoryInMiB ?? summed };
}
