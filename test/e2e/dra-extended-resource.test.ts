// GPUs served by Dynamic Resource Allocation (KEP-5004, beta and on by
// default in Kubernetes 1.36): a stand-in for NVIDIA's DRA driver installs
// its DeviceClass with `extendedResourceName: nvidia.com/gpu` and publishes
// ResourceSlices shaped like the real driver's on nodes that have no
// nvidia.com/gpu in allocatable, beside device-plugin nodes. Pods ask for
// plain nvidia.com/gpu with our model/memory annotations; the real
// kube-scheduler v1.36 (gpu-scheduler profile, DynamicResources on) calls
// the extender, which must see the DRA nodes' GPUs from their slices, and
// allocates the devices itself (the pod's extendedResourceClaimStatus names
// the claim it made, whose devices must be GPUs of the pod's node). Asserted
// on what kube-scheduler did: spec.nodeName, the claim's devices or the
// FailedScheduling message, and on the extender's own ranking. Last, the
// reconciler (its Lambda module, as its least-privilege identity) must count
// the same GPUs in its outcome metrics: the DRA nodes' devices allocatable,
// the bound pods' nvidia.com/gpu allocated, per model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { allocatedDeviceNodes } from './support/dra-allocation';
import { DRA_GPUS, installDraGpuDriver, nvidiaGpuDevice, type DraGpuDriver } from '../../local/addons/dra-gpu-driver';
import { describeInstanceType, seedGpuLabels, type GpuNode, type GpuNodeSpec } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodEvent, waitForPodScheduled } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import type { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { deployedExtenderSettings, GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { emfByDimension, emfValues } from './emf-records';
import { KARPENTER_P4D } from './real-node-labels';
import { reconcilerEnv, startReconcilerLambda } from './reconciler-fixtures';
import { CASE_LABEL, createCaseNode, createdNodeName, inCase } from './case-nodes';

const harness = e2eHarness();
const { core } = harness;

const WAIT_MS = 90_000;
const CACHE_TTL_MS = 1000;

let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let driver: DraGpuDriver | undefined;
let reconciler: LocalLambda | undefined;
let namespace = '';
const logDir = mkdtempSync(join(tmpdir(), 'dra-outcome-'));

const nodes: Record<'draH100' | 'draA10g' | 'pluginA100' | 'packA' | 'packB' | 'contradicting' | 'hostile', GpuNode | undefined> = {
  draH100: undefined,
  draA10g: undefined,
  pluginA100: undefined,
  packA: undefined,
  packB: undefined,
  contradicting: undefined,
  hostile: undefined,
};

const nodeName = (key: keyof typeof nodes): string => createdNodeName(nodes, key);
const gpuNode = (caseName: string, spec: GpuNodeSpec): Promise<GpuNode> => createCaseNode(harness.nodeClients, caseName, spec);

const onNode = (key: keyof typeof nodes): Record<string, string> => ({ 'kubernetes.io/hostname': nodeName(key) });

function gpuPod(name: string, gpus: number, nodeSelector: Record<string, string>, annotations: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, annotations },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      nodeSelector,
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
    },
  };
}

const createPod = (pod: V1Pod) => core.createNamespacedPod({ namespace, body: pod });
const scheduledOn = (name: string): Promise<string> => waitForPodScheduled(core, { namespace, name }, WAIT_MS);

async function failedScheduling(name: string): Promise<string> {
  const event = await waitForPodEvent(core, { namespace, name }, (e) => e.reason === 'FailedScheduling', WAIT_MS);
  const pod = await core.readNamespacedPod({ namespace, name });
  expect(pod.spec?.nodeName ?? '').toBe('');
  return event.message ?? '';
}

/** The claim kube-scheduler made for the pod's nvidia.com/gpu from a DRA driver's devices (KEP-5004); undefined for a device-plugin pod. */
async function extendedResourceClaim(name: string): Promise<string | undefined> {
  const pod = await core.readNamespacedPod({ namespace, name });
  const status = pod.status as { extendedResourceClaimStatus?: { resourceClaimName?: string } } | undefined;
  return status?.extendedResourceClaimStatus?.resourceClaimName;
}

/** The nodes of the devices allocated in the pod's extended-resource claim (one entry per device, `node/device`). */
async function extendedResourceDevices(name: string): Promise<string[]> {
  const claim = await extendedResourceClaim(name);
  if (claim === undefined) throw new Error(`pod ${name} has no extendedResourceClaimStatus`);
  return allocatedDeviceNodes(harness.kubeConfig, namespace, claim);
}

/** `count` devices, each a GPU of the pod's node. */
const devicesOn = (node: string, count: number): unknown[] => Array.from({ length: count }, () => expect.stringMatching(new RegExp(`^${node.replace(/\./g, '\\.')}/gpu-\\d+$`)));

const H100_80GI = { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '80Gi' };

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('dra-gpus');
  driver = await installDraGpuDriver(harness.kubeConfig);

  // The extender's least-privilege identity (now with list/watch on resourceslices); a short cache TTL.
  extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: `${CACHE_TTL_MS}ms` });
  const ours = seedGpuLabels(await describeInstanceType(harness.ec2, 'p4d.24xlarge'));
  [nodes.draH100, nodes.draA10g, nodes.pluginA100, nodes.packA, nodes.packB, nodes.contradicting, nodes.hostile] = await Promise.all([
    // No labels at all: the slices alone say what the node has.
    gpuNode('mixed', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }),
    gpuNode('mixed', { instanceType: 'g5.12xlarge', gpusFrom: 'dra' }),
    gpuNode('mixed', { instanceType: 'p4d.24xlarge', labels: ours }),
    gpuNode('pack', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }),
    gpuNode('pack', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }),
    // Karpenter says A100, the driver's slices say H100.
    gpuNode('contradicting', { instanceType: 'p5.48xlarge', gpusFrom: 'dra', labels: KARPENTER_P4D }),
    gpuNode('hostile', { instanceType: 'p5.48xlarge', gpusFrom: 'dra' }),
  ]);
  for (const key of ['draH100', 'packA', 'packB', 'contradicting'] as const) await driver.publish(nodes[key]?.node ?? {}, 8, DRA_GPUS.h100);
  await driver.publish(nodes.draA10g?.node ?? {}, 4, DRA_GPUS.a10g);
  // A device with no productName: the node cannot say what it has.
  const nameless = nvidiaGpuDevice(0, DRA_GPUS.h100) as { attributes: Record<string, unknown> };
  delete nameless.attributes.productName;
  await driver.publish(nodes.hostile?.node ?? {}, 1, DRA_GPUS.h100, { devices: [nameless] });
  for (const key of ['draH100', 'draA10g', 'packA', 'packB'] as const) {
    // The premise: DRA nodes advertise no nvidia.com/gpu, so the device plugin's count is not what the extender reads.
    expect(nodes[key]?.node.status?.allocatable?.['nvidia.com/gpu']).toBeUndefined();
  }

  // As deployed (cdk/lib/scheduler): NodeNames, read from the extender's cluster cache.
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
}, 180_000);

afterAll(async () => {
  await reconciler?.stop();
  await harness.tearDown(namespace, scheduler, extender);
  await driver?.uninstall();
  rmSync(logDir, { recursive: true, force: true });
});

describe('GPUs from a DRA driver (KEP-5004) under the real kube-scheduler v1.36', () => {
  it('filters DRA and device-plugin nodes alike by model and memory; kube-scheduler allocates the DRA devices', async () => {
    await Promise.all([
      createPod(gpuPod('h100-80gi', 1, inCase('mixed'), H100_80GI)),
      createPod(gpuPod('a10g-24gi', 1, inCase('mixed'), { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/memory': '24Gi' })),
      createPod(gpuPod('a100', 2, inCase('mixed'), { 'gpu.nvidia.com/model': 'A100' })),
      createPod(gpuPod('h100-96gi', 1, inCase('mixed'), { 'gpu.nvidia.com/memory': '96Gi' })),
    ]);
    expect(await scheduledOn('h100-80gi')).toBe(nodeName('draH100'));
    // NVML's 23028 MiB is the A10G's 24 GiB.
    expect(await scheduledOn('a10g-24gi')).toBe(nodeName('draA10g'));
    expect(await scheduledOn('a100')).toBe(nodeName('pluginA100'));
    // kube-scheduler allocated the DRA nodes' devices, from the node each pod was bound to.
    expect(await extendedResourceDevices('h100-80gi')).toEqual(devicesOn(nodeName('draH100'), 1));
    expect(await extendedResourceDevices('a10g-24gi')).toEqual(devicesOn(nodeName('draA10g'), 1));
    expect(await extendedResourceClaim('a100')).toBeUndefined();
    // No GPU anywhere has 96 GiB: the extender says so for each of the three nodes.
    expect(await failedScheduling('h100-96gi')).toContain('Not enough GPU memory');
    expect(extender?.filterDecisionsOf(namespace, 'h100-96gi')[0]).toMatchObject({ candidates: 3, kept: 0, reasons: { InsufficientGpuMemory: 3 } });
    expect(extender?.filterDecisionsOf(namespace, 'h100-80gi')[0]).toMatchObject({ mode: 'NodeNames', candidates: 3, kept: 1 });
  });

  it('counts the nvidia.com/gpu a DRA node already runs, and packs the next pod where the extender ranks first', async () => {
    await createPod(gpuPod('six', 6, onNode('packA'), H100_80GI));
    expect(await scheduledOn('six')).toBe(nodeName('packA'));
    expect(await extendedResourceDevices('six')).toEqual(devicesOn(nodeName('packA'), 6));
    // The extender's snapshot holds the bound pod before the next one is decided.
    await extender?.waitForSnapshot('show six bound', (snapshot) => snapshot.podsInNamespace(namespace).some((pod) => pod.name === 'six'));
    // Two GPUs fill packA exactly; on packB they would strand six.
    await createPod(gpuPod('two', 2, inCase('pack'), H100_80GI));
    const placed = await scheduledOn('two');
    expect(placed).toBe(nodeName('packA'));
    // Ranked first, and not by a tie: had the extender missed the six bound GPUs, both nodes would look empty alike.
    expect(extender?.lastRankingOf(namespace, 'two')).toMatchObject({ best: { node: placed }, runnerUp: { node: nodeName('packB') }, tie: false });
    expect(await extendedResourceDevices('two')).toEqual(devicesOn(nodeName('packA'), 2));
  });

  it('rejects only the node whose slices contradict its labels or are malformed (InvalidNodeData)', async () => {
    await Promise.all([createPod(gpuPod('on-contradicting', 1, onNode('contradicting'))), createPod(gpuPod('on-hostile', 1, onNode('hostile')))]);
    expect(await failedScheduling('on-contradicting')).toContain(
      'Node reports impossible GPU data: labellers disagree on the GPU model: karpenter.k8s.aws/instance-gpu-name="a100", ResourceSlice productName="NVIDIA H100 80GB HBM3"',
    );
    expect(await failedScheduling('on-hostile')).toContain('Node reports impossible GPU data: ResourceSlices of gpu.nvidia.com: device "gpu-0" has no productName');
  });

  it("counts the DRA nodes' GPUs and their bound pods' in the reconciler's outcome metrics, per model, beside the device-plugin node", async () => {
    // Runs after the tests above: bound by kube-scheduler are h100-80gi (1, draH100), a10g-24gi (1, draA10g),
    // a100 (2, pluginA100, device plugin), six and two (8, packA); h100-96gi, on-contradicting and on-hostile wait.
    const records: Record<string, unknown>[] = [];
    reconciler = await startReconcilerLambda(harness.info, {
      functionName: 'dra-outcome-reconciler',
      environment: reconcilerEnv(harness.info, namespace, {
        GPU_SCHEDULER_NAME,
        NODE_UTILIZATION_ENABLED: 'false',
        // This file's nodes; the DRA ones carry no GPU labels, so the default selector (the labeller's count label) would miss them here.
        NODE_SELECTOR: `${CASE_LABEL} in (mixed,pack,contradicting,hostile)`,
      }),
      logDir,
      onLogRecord: (record) => records.push(record),
    });
    await reconciler.invoke({ id: 'dra-outcome-1', time: new Date().toISOString() });
    const values = (metric: string): unknown[] => emfValues(records, metric).map((v) => v.value);
    const byModel = (state: string): Record<string, unknown> => emfByDimension(records, 'GpusByModel', 'GpuModel', { State: state });
    await waitFor('the EMF line with the GPU totals', async () => (values('GpusAllocatable').length > 0 ? true : undefined));

    // 8 + 8 + 8 H100 and 4 A10G from slices, 8 A100 from the device plugin; the contradicting and hostile nodes count none.
    expect([values('GpusAllocatable'), values('GpusAllocated'), values('GpusIdle')]).toEqual([[36], [12], [24]]);
    expect(byModel('Allocatable')).toEqual({ A100: 8, A10G: 4, H100: 24 });
    expect(byModel('Allocated')).toEqual({ A100: 2, A10G: 1, H100: 9 });
    expect(byModel('Idle')).toEqual({ A100: 6, A10G: 3, H100: 15 });
    expect(values('GpuPodsPending')).toEqual([3]);
    // Listing the slices worked under the reconciler's RBAC (list on resourceslices): no Kubernetes error.
    expect(values('ReconcilerErrors')).toEqual([]);
    const warning = records.find((r) => r.message === 'nodes left out of the GPU counts: their GPU data (labels or ResourceSlices) cannot be trusted');
    expect(warning).toMatchObject({ nodes: 2 });
    expect(warning?.examples).toEqual(
      expect.arrayContaining([
        { node: nodeName('hostile'), reason: expect.stringContaining('has no productName') },
        { node: nodeName('contradicting'), reason: expect.stringContaining('labellers disagree on the GPU model') },
      ]),
    );
  });
});
