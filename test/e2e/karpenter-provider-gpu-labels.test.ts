// The labels the harness gives the nodes its Karpenter launches
// (local/addons/karpenter-instance-types.ts, from EC2's DescribeInstanceTypes)
// held against Karpenter's AWS provider's own data at the pinned release: the
// labels its test expects for an EC2 record of its fake, the EC2 records of
// its fake for the types the e2e tests launch, and the GPUs it scraped from
// each type's instances. The provider's instance-type code itself cannot run
// here (its packages need Go modules outside the harness's), so its data is
// what the mapping must agree with.
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, type EC2Client, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAwsProviderModule, type AwsProviderModule } from '../../local/builds/karpenter-aws-provider';
import { DEFAULT_KARPENTER_INSTANCE_TYPES, describeKarpenterInstanceTypes, type KarpenterInstanceType } from '../../local/addons/karpenter-instance-types';
import { KARPENTER_GPU_LABEL } from '../../lambdas/labeler/gpu-labels';
import { e2eHarness } from './support/e2e-context';
import { providerExpectedLabels, providerGpuMetadata, providerInstanceTypeRecords } from './support/karpenter-provider-data';

const harness = e2eHarness();

/** The type the provider's instance-type test checks every label of (g4dn.8xlarge: one T4). */
const PROVIDER_CHECKED_TYPE = 'g4dn.8xlarge';

let provider: AwsProviderModule;
let records: Map<string, InstanceTypeInfo>;

/** An EC2 client answering from the provider's records: the data under test is theirs, not an EC2 service's. */
function answeringFrom(known: ReadonlyMap<string, InstanceTypeInfo>): EC2Client {
  const send = (command: unknown): Promise<unknown> => {
    if (command instanceof DescribeInstanceTypesCommand) return Promise.resolve({ InstanceTypes: (command.input.InstanceTypes ?? []).flatMap((name) => known.get(name) ?? []) });
    if (command instanceof DescribeInstanceTypeOfferingsCommand) return Promise.resolve({ InstanceTypeOfferings: [{ Location: 'us-east-1a' }] });
    return Promise.reject(new Error('unexpected EC2 call'));
  };
  return { send } as unknown as EC2Client;
}

async function labelsFromRecord(instanceType: string): Promise<Record<string, string>> {
  const [described] = await describeKarpenterInstanceTypes(answeringFrom(records), [{ instanceType, pricePerHour: 1 }]);
  return described?.labels ?? {};
}

beforeAll(async () => {
  provider = await ensureAwsProviderModule();
  records = providerInstanceTypeRecords(provider);
}, 600_000);

describe("the harness's Karpenter node labels against Karpenter's AWS provider's data", () => {
  it(`gives the provider's own ${PROVIDER_CHECKED_TYPE} record every label value the provider's test expects`, async () => {
    const ours = await labelsFromRecord(PROVIDER_CHECKED_TYPE);
    const expected = providerExpectedLabels(provider, PROVIDER_CHECKED_TYPE);
    // All four GPU labels and the instance ones (category, family, generation, size, cpu, memory).
    expect(Object.keys(ours)).toEqual(expect.arrayContaining(Object.values(KARPENTER_GPU_LABEL)));
    expect(Object.keys(ours).length).toBeGreaterThanOrEqual(10);
    expect(Object.fromEntries(Object.keys(ours).map((key) => [key, expected[key]]))).toEqual(ours);
  });

  describe('for every GPU type the e2e tests launch', () => {
    let fromMoto: Map<string, KarpenterInstanceType>;
    beforeAll(async () => {
      const described = await describeKarpenterInstanceTypes(harness.ec2, DEFAULT_KARPENTER_INSTANCE_TYPES.map((instanceType) => ({ instanceType })));
      fromMoto = new Map(described.map((type) => [type.kwok.name, type]));
    });

    it("labels as the provider's fake EC2 record does, for each type the provider has a record of", async () => {
      const recorded = DEFAULT_KARPENTER_INSTANCE_TYPES.filter((type) => records.has(type));
      // g5.12xlarge (A10G) and p5.48xlarge (H100), the types the launch tests assert on.
      expect(recorded).toEqual(expect.arrayContaining(['g5.12xlarge', 'p5.48xlarge']));
      for (const type of recorded) expect(fromMoto.get(type)?.labels, type).toEqual(await labelsFromRecord(type));
    });

    it("labels each type's GPUs as the provider's scrape of its instances shows them: count, maker, model and memory", () => {
      for (const type of DEFAULT_KARPENTER_INSTANCE_TYPES) {
        const labels = fromMoto.get(type)?.labels ?? {};
        const scraped = providerGpuMetadata(provider, type);
        if (!scraped) throw new Error(`Karpenter's AWS provider has no GPU data for ${type}`);
        expect(labels[KARPENTER_GPU_LABEL.count], type).toBe(String(scraped.count));
        expect(labels[KARPENTER_GPU_LABEL.manufacturer], type).toBe(scraped.brand.toLowerCase());
        // The model as a word of the product name: "NVIDIA A100-SXM4-40GB" is an a100, not an a10.
        const model = labels[KARPENTER_GPU_LABEL.name] ?? '';
        expect(scraped.productName.toLowerCase().split(/[^a-z0-9]+/), type).toContain(model);
        // nvidia-smi's figure is not EC2's (A10G: 23028 MiB scraped, 22888 MiB in EC2's record; L40S: 46068 and 45776),
        // so the memory is held to within 10% of what the provider saw: a unit or per-instance/per-GPU mix-up is far outside that.
        const memoryMiB = Number(labels[KARPENTER_GPU_LABEL.memory]);
        expect(Math.abs(scraped.memoryMiB - memoryMiB), `${type}: ${memoryMiB} MiB labelled, ${scraped.memoryMiB} MiB scraped`).toBeLessThan(scraped.memoryMiB * 0.1);
      }
    });
  });
});
