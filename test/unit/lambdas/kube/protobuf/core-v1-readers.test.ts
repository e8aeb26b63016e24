import fc from 'fast-check';
import { PbfWriter } from 'pbf';
import { describe, expect, it } from 'vitest';
import { readNode, readPod } from '../../../../../lambdas/kube/protobuf/core-v1-readers';
import { decodeKubeList, ProtobufDecodeError } from '../../../../../lambdas/kube/protobuf/kube-protobuf';
import { nodeInfoFromKubernetes, podInfoFromKubernetes } from '../../../../../lambdas/scheduling';
import { encodeList, envelope, writeNode, writePod } from './kube-protobuf-encoder';

type Json = Record<string, unknown>;

const name = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?$/);
const quantity = fc.oneof(fc.constantFrom('100m', '2', '4Gi', '0', '1500m', '80Gi'), fc.nat({ max: 64 }).map(String));
const resourceName = fc.constantFrom('cpu', 'memory', 'nvidia.com/gpu', 'nvidia.com/gpu.shared', 'nvidia.com/mig-1g.5gb', 'ephemeral-storage');
const quantities = fc.dictionary(resourceName, quantity, { maxKeys: 4 });
const labels = fc.dictionary(fc.constantFrom('app', 'gpu.nvidia.com/job', 'topology.kubernetes.io/zone', 'team'), fc.oneof(name, fc.constant('')), { maxKeys: 4 });
const requirements = fc.record({ limits: quantities, requests: quantities }, { requiredKeys: [] });
const container = fc.record({ name, resources: requirements, restartPolicy: fc.constant('Always') }, { requiredKeys: ['name'] });

/** A pod as its JSON listing shows the fields the readers keep (absent, not empty, where Go omits them). */
const jsonPod = fc.record(
  {
    metadata: fc.record({ name, namespace: name, uid: fc.uuid(), resourceVersion: fc.nat().map(String), labels, annotations: labels }, { requiredKeys: ['name', 'namespace', 'uid'] }),
    spec: fc.record({ containers: fc.array(container, { minLength: 1, maxLength: 3 }), initContainers: fc.array(container, { maxLength: 2 }), nodeName: name, overhead: quantities, resources: requirements }, { requiredKeys: ['containers'] }),
    status: fc.record({ phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed') }),
  },
  { requiredKeys: ['metadata', 'spec', 'status'] },
);

const MAPS = new Set(['labels', 'annotations', 'limits', 'requests', 'overhead', 'capacity', 'allocatable']);

/**
 * The decoded form of a JSON object: protobuf has no empty map or empty
 * repeated field, and the readers leave out empty strings; an empty message
 * (a container's `resources: {}`) stays, as it does in JSON.
 */
function asDecoded(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => asDecoded(v));
  if (value !== null && typeof value === 'object') {
    if (MAPS.has(key)) return Object.keys(value).length === 0 ? undefined : value;
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, asDecoded(v, k)] as const)
        .filter(([, v]) => v !== undefined && v !== ''),
    );
  }
  return value;
}

function decodePods(items: readonly Json[]): unknown[] {
  return decodeKubeList(encodeList(items, writePod), readPod).items;
}

describe('readPod', () => {
  it('gives every kept field as the JSON listing has it, skipping managedFields, images, env and conditions (property)', () => {
    fc.assert(
      fc.property(fc.array(jsonPod, { maxLength: 4 }), (pods) => {
        const decoded = decodePods(pods);
        expect(decoded).toEqual(pods.map((p) => asDecoded(p)));
        expect(decoded.map((p) => podInfoFromKubernetes(p))).toEqual(pods.map((p) => podInfoFromKubernetes(p)));
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out the empty strings Go writes in proto2 and JSON omits, but keeps an empty label value', () => {
    const [pod] = decodePods([{ metadata: { name: 'p', labels: { 'example.com/flag': '' } }, spec: { containers: [{ name: 'main' }] }, status: {} }]);
    expect(pod).toEqual({ metadata: { name: 'p', labels: { 'example.com/flag': '' } }, spec: { containers: [{ name: 'main' }] }, status: {} });
  });

  it('keeps a map key named __proto__ as an own entry, as JSON.parse does', () => {
    const [pod] = decodePods([{ metadata: { name: 'p', annotations: { ['__proto__']: 'x' } }, spec: { containers: [] }, status: {} }]) as Json[];
    const annotations = (pod?.metadata as Json).annotations as Json;
    expect(Object.getPrototypeOf(annotations)).toBe(Object.prototype);
    expect(Object.keys(annotations)).toEqual(['__proto__']);
  });

  it('skips a known field number that arrives with another wire type instead of misreading it', () => {
    const pod = new PbfWriter();
    pod.writeMessage(
      1,
      (_: null, meta) => {
        meta.writeVarintField(1, 42); // name as a varint: not what ObjectMeta says
        meta.writeStringField(3, 'ns');
      },
      null,
    );
    const list = new PbfWriter();
    list.writeBytesField(2, pod.finish());
    expect(decodeKubeList(envelope(list.finish()), readPod).items).toEqual([{ metadata: { namespace: 'ns' } }]);
  });

  it('refuses a message inside a pod that runs past the pod, or past the body', () => {
    const pod = new PbfWriter();
    pod.writeVarint((1 << 3) | 2); // metadata, length-delimited
    pod.writeVarint(50);
    pod.writeString('abc');
    const list = new PbfWriter();
    list.writeBytesField(2, pod.finish());
    const body = envelope(list.finish());
    expect(() => decodeKubeList(body, readPod)).toThrow(ProtobufDecodeError);
    expect(() => decodeKubeList(body, readPod)).toThrow(/item 0: a message of 50 bytes at offset \d+ runs past the end of the \d+-byte body/);
  });
});

describe('readNode', () => {
  it('gives labels, annotations, capacity and allocatable, and the same NodeInfo as the JSON form', () => {
    const node = {
      metadata: { name: 'ip-10-0-0-1.ec2.internal', uid: 'u1', labels: { 'nvidia.com/gpu.product': 'NVIDIA-A10G-SHARED', 'nvidia.com/gpu.replicas': '4' }, annotations: { 'gpu.nvidia.com/utilization': '12' } },
      status: { capacity: { cpu: '48', 'nvidia.com/gpu': '16' }, allocatable: { cpu: '47810m', memory: '186Gi', 'nvidia.com/gpu': '16', pods: '110' } },
    };
    const [decoded] = decodeKubeList(encodeList([node], writeNode), readNode).items;
    expect(decoded).toEqual(node);
    expect(nodeInfoFromKubernetes(decoded)).toEqual(nodeInfoFromKubernetes(node));
  });

  it('gives the health conditions\' type, status, reason and message, and the same health as the JSON form', () => {
    const conditions = [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastTransitionTime: '2026-12-01T09:00:00Z' },
      { type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus', lastTransitionTime: '2026-12-01T10:00:00Z' },
      { type: 'NetworkingReady', status: 'True', reason: '', message: '', lastTransitionTime: '2026-12-01T10:00:00Z' },
    ];
    const node = { metadata: { name: 'n' }, status: { allocatable: { 'nvidia.com/gpu': '8' }, conditions } };
    const [decoded] = decodeKubeList(encodeList([node], writeNode), readNode).items;
    // The times are not read; Go's empty strings are left out, as JSON omits them.
    expect(decoded).toEqual({ ...node, status: { ...node.status, conditions: [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      { type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus' },
      { type: 'NetworkingReady', status: 'True' },
    ] } });
    const fromProtobuf = nodeInfoFromKubernetes(decoded);
    expect(fromProtobuf?.health.failing).toMatchObject({ reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus' });
    expect({ ...fromProtobuf?.health.failing, since: undefined }).toEqual({ ...nodeInfoFromKubernetes(node)?.health.failing, since: undefined });
  });

  it('reads a quantity without its text as "0", the zero quantity', () => {
    const status = new PbfWriter();
    status.writeMessage(
      2,
      (_: null, entry) => {
        entry.writeStringField(1, 'nvidia.com/gpu');
        entry.writeMessage(2, () => undefined, null);
      },
      null,
    );
    const node = new PbfWriter();
    node.writeBytesField(3, status.finish());
    const list = new PbfWriter();
    list.writeBytesField(2, node.finish());
    expect(decodeKubeList(envelope(list.finish()), readNode).items).toEqual([{ status: { allocatable: { 'nvidia.com/gpu': '0' } } }]);
  });
});
