// Karpenter's AWS provider's own instance-type data, read from its Go source
// at the pinned release (local/builds/karpenter-aws-provider.ts): the EC2
// records its fake serves, the labels its tests expect for one of them, and
// the GPUs it scraped per instance type. Each reader fails loudly when the
// source no longer has the shape it reads, rather than finding nothing.
import { readFileSync } from 'node:fs';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import type { AwsProviderModule } from '../../../local/builds/karpenter-aws-provider';

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

function need<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`Karpenter's AWS provider source no longer has ${what}`);
  return value;
}

/** The Go constant names of the provider's labels (`LabelInstanceGPUName`) → the label (`karpenter.k8s.aws/instance-gpu-name`). */
export function providerLabelKeys(module: AwsProviderModule): Map<string, string> {
  const group = need(/\bGroup\s*=\s*"([^"]+)"/.exec(read(module.apiGroup))?.[1], 'apis.Group');
  const keys = new Map<string, string>();
  for (const match of read(module.labels).matchAll(/^\s*(Label\w+)\s*=\s*apis\.Group\s*\+\s*"([^"]+)"/gm)) keys.set(match[1] ?? '', `${group}${match[2] ?? ''}`);
  if (!keys.has('LabelInstanceGPUName')) throw new Error("Karpenter's AWS provider source no longer has LabelInstanceGPUName");
  return keys;
}

/** The labels of the provider's own group its instance-type test expects on a node of `instanceType`. */
export function providerExpectedLabels(module: AwsProviderModule, instanceType: string): Record<string, string> {
  const suite = read(module.instanceTypeSuite);
  const start = suite.indexOf(`corev1.LabelInstanceTypeStable: "${instanceType}"`);
  if (start < 0) throw new Error(`Karpenter's AWS provider's instance-type test expects no labels for ${instanceType}`);
  const block = suite.slice(start, suite.indexOf('\n\t\t}', start));
  const keys = providerLabelKeys(module);
  const labels: Record<string, string> = {};
  // Constants spelled otherwise (LabelTopologyZoneID is not in the provider's label group) are left out: the caller compares the keys it writes.
  for (const match of block.matchAll(/\bv1\.(Label\w+):\s*"([^"]*)"/g)) {
    const key = keys.get(match[1] ?? '');
    if (key) labels[key] = match[2] ?? '';
  }
  return labels;
}

/** DescribeInstanceTypes records of the provider's fake EC2, as much of each as the harness reads (name, vCPUs, memory, architectures, GPUs). */
export function providerInstanceTypeRecords(module: AwsProviderModule): Map<string, InstanceTypeInfo> {
  const source = read(module.fakeInstanceTypes);
  const start = need(source.indexOf('defaultDescribeInstanceTypesOutput'), 'defaultDescribeInstanceTypesOutput');
  const end = source.indexOf('defaultDescribeInstanceTypeOfferingsOutput', start);
  const body = source.slice(start, end < 0 ? undefined : end);
  const records = new Map<string, InstanceTypeInfo>();
  for (const chunk of body.split(/\n\t\t\{\n/).slice(1)) {
    const name = /InstanceType:\s*"([^"]+)"/.exec(chunk)?.[1];
    if (!name) continue;
    const number = (pattern: RegExp): number | undefined => {
      const text = pattern.exec(chunk)?.[1];
      return text === undefined ? undefined : Number(text);
    };
    const gpu = /GpuInfo:[\s\S]*?Name:\s*aws\.String\("([^"]+)"\)[\s\S]*?Manufacturer:\s*aws\.String\("([^"]+)"\)[\s\S]*?Count:\s*aws\.Int32\((\d+)\)[\s\S]*?SizeInMiB:\s*aws\.Int32\((\d+)\)/.exec(chunk);
    const architectures = /SupportedArchitectures:\s*\[\]ec2types\.ArchitectureType\{([^}]*)\}/.exec(chunk)?.[1] ?? '';
    records.set(name, {
      InstanceType: name as InstanceTypeInfo['InstanceType'],
      VCpuInfo: { DefaultVCpus: number(/DefaultVCpus:\s*aws\.Int32\((\d+)\)/) },
      MemoryInfo: { SizeInMiB: number(/MemoryInfo:\s*&ec2types\.MemoryInfo\{\s*SizeInMiB:\s*aws\.Int64\((\d+)\)/) },
      ProcessorInfo: { SupportedArchitectures: [...architectures.matchAll(/"([^"]+)"/g)].map((m) => m[1] as 'x86_64' | 'arm64') },
      ...(gpu
        ? { GpuInfo: { Gpus: [{ Name: gpu[1], Manufacturer: gpu[2], Count: Number(gpu[3]), MemoryInfo: { SizeInMiB: Number(gpu[4]) } }] } }
        : {}),
    });
  }
  if (records.size === 0) throw new Error("Karpenter's AWS provider's fake EC2 serves no instance type this reader finds");
  return records;
}

/** An instance type's NVIDIA GPUs as the provider scraped them from the running instance (nvidia-smi's view). */
export interface ProviderGpuMetadata {
  count: number;
  brand: string;
  productName: string;
  /** Per device, in MiB. */
  memoryMiB: number;
}

export function providerGpuMetadata(module: AwsProviderModule, instanceType: string): ProviderGpuMetadata | undefined {
  const source = read(module.gpuMetadata);
  const start = source.indexOf(`\n\t"${instanceType}": {`);
  if (start < 0) return undefined;
  const next = source.indexOf('\n\t"', start + 1);
  const block = source.slice(start, next < 0 ? undefined : next);
  const memory = need(/"memory":\s*\{Value:\s*resource\.MustParse\("(\d+)(Mi|Gi)"\)/.exec(block), `the GPU memory of ${instanceType}`);
  return {
    count: Number(need(/Count:\s*(\d+)/.exec(block)?.[1], `the GPU count of ${instanceType}`)),
    brand: need(/"brand":\s*\{StringValue:\s*strPtr\("([^"]+)"\)/.exec(block)?.[1], `the GPU brand of ${instanceType}`),
    productName: need(/"productName":\s*\{StringValue:\s*strPtr\("([^"]+)"\)/.exec(block)?.[1], `the GPU product name of ${instanceType}`),
    memoryMiB: Number(memory[1]) * (memory[2] === 'Gi' ? 1024 : 1),
  };
}
