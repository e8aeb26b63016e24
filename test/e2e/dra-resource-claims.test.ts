// Pods that claim GPUs through ResourceClaimTemplates (no nvidia.com/gpu in
// their requests) and use gpu-scheduler, against the real kube-scheduler
// v1.36 (DynamicResources on), kube-controller-manager (which makes each
// pod's claim from its template) and a stand-in for NVIDIA's DRA driver
// publishing its DeviceClass and ResourceSlices. The deployed extender
// settings list no managedResources, so kube-scheduler sends these pods to
// the extender; it reads the claims from its cache (list/watch under its
// least-privilege identity): model and memory from the selectors, the count
// from the request, and the devices claims already hold on each node.
// Asserted on what kube-scheduler did (spec.nodeName, the claim's
// allocation) and on the extender's own decisions for the pod.
import { KubernetesObjectApi, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSEEN_CLAIM_REFRESH_MS } from '../../lambdas/extender/candidate-nodes';
import { e2eHarness } from './support/e2e-context';
import { claimingPod, podAllocatedDevices } from './support/dra-allocation';
import { DRA_GPUS, installDraGpuDriver, nvidiaGpuClaimTemplate, productNameIs, type DraGpuDriver } from '../../local/addons/dra-gpu-driver';
import { describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { createCaseNode, inCase } from './case-nodes';

const harness = e2eHarness();
const { core } = harness;
const objects = KubernetesObjectApi.makeApiClient(harness.kubeConfig);
const allocatedDevices = (pod: string): Promise<string[]> => podAllocatedDevices(harness.kubeConfig, namespace, pod);

const WAIT_MS = 90_000;
const BURST = 16;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let driver: DraGpuDriver | undefined;
let namespace = '';
const nodes: Record<string, GpuNode> = {};

const nodeName = (key: string): string => {
  const node = nodes[key];
  if (node === undefined) throw new Error(`node ${key} was not created`);
  return node.name;
};

/** The same pod through the device plugin. */
function requestingPod(name: string, gpus: number, nodeSelector: Record<string, string>, labels: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      nodeSelector,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
    },
  };
}

async function createTemplate(name: string, count: number, selectors: readonly string[] = []): Promise<void> {
  const template = nvidiaGpuClaimTemplate(name, count, selectors);
  await objects.create({ ...template, metadata: { name, namespace } } as unknown as KubernetesObject);
}

const createPod = (pod: V1Pod) => core.createNamespacedPod({ namespace, body: pod });
const scheduledOn = (name: string): Promise<string> => waitForPodScheduled(core, { namespace, name }, WAIT_MS);

function countByNode(placements: readonly string[]): number[] {
  const counts = new Map<string, number>();
  for (const node of placements) counts.set(node, (counts.get(node) ?? 0) + 1);
  return [...counts.values()].sort((a, b) => b - a);
}

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('dra-claims');
  driver = await installDraGpuDriver(harness.kubeConfig);
  // The deployed cache TTL: what a claim made moments before the request is looked for in.
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender);
  const p5 = seedGpuLabels(await describeInstanceType(harness.ec2, 'p5.48xlarge'));
  const specs: [string, string, Parameters<typeof createCaseNode>[2]][] = [
    ['mixedH100', 'mixed', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }],
    ['mixedA10g', 'mixed', { instanceType: 'g5.12xlarge', gpusFrom: 'dra' }],
    ['packA', 'pack', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }],
    ['packB', 'pack', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }],
    ...[0, 1, 2].map((i): [string, string, Parameters<typeof createCaseNode>[2]] => [`burstDra${i}`, 'burst-dra', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }]),
    ...[0, 1, 2].map((i): [string, string, Parameters<typeof createCaseNode>[2]] => [`burstPlugin${i}`, 'burst-plugin', { instanceType: 'p5.48xlarge', labels: p5 }]),
  ];
  const created = await Promise.all(specs.map(([, caseName, spec]) => createCaseNode(harness.nodeClients, caseName, spec)));
  specs.forEach(([key], i) => {
    const node = created[i];
    if (node !== undefined) nodes[key] = node;
  });
  for (const key of Object.keys(nodes).filter((k) => !k.startsWith('burstPlugin') && k !== 'mixedA10g')) await driver.publish(nodes[key]?.node ?? {}, 8, DRA_GPUS.h100);
  await driver.publish(nodes.mixedA10g?.node ?? {}, 4, DRA_GPUS.a10g);

  await createTemplate('one-a10g', 1, [productNameIs(DRA_GPUS.a10g.productName)]);
  await createTemplate('six-h100', 6, [productNameIs(DRA_GPUS.h100.productName)]);
  await createTemplate('two-h100', 2, [productNameIs(DRA_GPUS.h100.productName)]);
  await createTemplate('one-gpu', 1);
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
}, 180_000);

afterAll(async () => {
  await harness.tearDown(namespace, scheduler, extender);
  await driver?.uninstall();
});

describe('pods that claim GPUs through ResourceClaims, under the real kube-scheduler v1.36', () => {
  it('reach the extender, which reads how many GPUs their claims ask; kube-scheduler allocates the devices', async () => {
    await Promise.all([
      createPod(claimingPod('a10g', 'one-a10g', inCase('mixed'))),
      // Any GPU by its claim, 80 GiB by our annotation: only the extender tells the two nodes apart.
      createPod({ ...claimingPod('any-80gi', 'one-gpu', inCase('mixed')), metadata: { name: 'any-80gi', annotations: { 'gpu.nvidia.com/memory': '80Gi' } } }),
    ]);
    expect(await scheduledOn('a10g')).toBe(nodeName('mixedA10g'));
    expect(await allocatedDevices('a10g')).toEqual([expect.stringMatching(new RegExp(`^${nodeName('mixedA10g')}/gpu-[0-3]$`))]);
    // kube-scheduler's own DRA filter left the A10G node alone (the selector names its product), and still asked the extender.
    expect(extender?.filterDecisionsOf(namespace, 'a10g').at(-1)).toMatchObject({ candidates: 1, kept: 1 });
    // The claim was read as one GPU (else the pod would ask for none and pass both): the A10G's 24 GiB is not 80.
    expect(await scheduledOn('any-80gi')).toBe(nodeName('mixedH100'));
    expect(extender?.filterDecisionsOf(namespace, 'any-80gi').at(-1)).toMatchObject({ candidates: 2, kept: 1, reasons: { InsufficientGpuMemory: 1 } });
    expect(await allocatedDevices('any-80gi')).toEqual([expect.stringMatching(new RegExp(`^${nodeName('mixedH100')}/gpu-[0-7]$`))]);
  });

  it('counts the GPUs claims hold on a node, and packs the next claim where the extender ranks first', async () => {
    await createPod(claimingPod('six', 'six-h100', { 'kubernetes.io/hostname': nodeName('packA') }));
    expect(await scheduledOn('six')).toBe(nodeName('packA'));
    expect(await allocatedDevices('six')).toHaveLength(6);
    await extender?.waitForSnapshot('count the six GPUs claimed on packA', (snapshot) => snapshot.dra.gpusByNode.get(nodeName('packA'))?.claimed === 6);
    // The next pod's claim is made from its template just before kube-scheduler asks: a snapshot younger
    // than UNSEEN_CLAIM_REFRESH_MS is not refreshed for it, as in a cluster where the last refresh was that
    // recent. Past that age the request refreshes for the claim, the path this test is about.
    await extender?.waitForStaleSnapshot(UNSEEN_CLAIM_REFRESH_MS);
    // Two GPUs fill packA exactly; on packB they would strand six.
    await createPod(claimingPod('two', 'two-h100', inCase('pack')));
    const placed = await scheduledOn('two');
    expect(placed).toBe(nodeName('packA'));
    // Ranked first and not by a tie: had the extender missed the six claimed GPUs, both nodes would look empty alike.
    expect(extender?.lastRankingOf(namespace, 'two')).toMatchObject({ best: { node: placed }, runnerUp: { node: nodeName('packB') }, tie: false });
    expect(await allocatedDevices('two')).toHaveLength(2);
  });

  it('a burst of one-GPU claims packs onto as few nodes as the same pods through the device plugin', async () => {
    const ranks = [...Array(BURST).keys()];
    await Promise.all(ranks.map((rank) => createPod(requestingPod(`plugin-${rank}`, 1, inCase('burst-plugin'), { job: 'plugin' }))));
    const viaPlugin = await Promise.all(ranks.map((rank) => scheduledOn(`plugin-${rank}`)));
    await Promise.all(ranks.map((rank) => createPod(claimingPod(`claim-${rank}`, 'one-gpu', inCase('burst-dra'), { job: 'claim' }))));
    const viaClaims = await Promise.all(ranks.map((rank) => scheduledOn(`claim-${rank}`)));

    expect(countByNode(viaPlugin)).toEqual([8, 8]);
    expect(countByNode(viaClaims)).toEqual(countByNode(viaPlugin));
    // Every claim got its own device: 16 distinct GPUs on those two nodes.
    const devices = (await Promise.all(ranks.map((rank) => allocatedDevices(`claim-${rank}`)))).flat();
    expect(new Set(devices).size).toBe(BURST);
    // Each burst pod went through the extender with its claim read (one GPU asked), never with an error.
    await waitFor('a filter decision per burst pod', async () => (ranks.every((r) => (extender?.filterDecisionsOf(namespace, `claim-${r}`).length ?? 0) > 0) ? true : undefined));
    expect(extender?.responses.filter((r) => r.status !== 200)).toEqual([]);
  });
});
