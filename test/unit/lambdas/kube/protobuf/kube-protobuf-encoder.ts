// Encodes Pods, Nodes, lists and Statuses as kube-apiserver does (field
// numbers of k8s.io/api/core/v1 generated.proto, fields in number order, the
// "k8s\0" + runtime.Unknown envelope), including fields the readers must skip:
// managedFields, container images and env, status conditions. The real API
// server's output is compared with JSON in test/e2e/kube-protobuf-lists.test.ts;
// this encoder lets the unit tests reach what it never sends.
import { PbfWriter } from 'pbf';

type Json = Record<string, unknown>;
type Writer = (value: Json, pbf: PbfWriter) => void;

const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

function str(pbf: PbfWriter, field: number, value: unknown): void {
  if (typeof value === 'string') pbf.writeStringField(field, value);
}

function stringMap(pbf: PbfWriter, field: number, map: unknown): void {
  for (const [key, value] of Object.entries((map ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    pbf.writeMessage(field, (_: null, w) => {
      w.writeStringField(1, key);
      w.writeStringField(2, value);
    }, null);
  }
}

function quantityMap(pbf: PbfWriter, field: number, map: unknown): void {
  for (const [key, value] of Object.entries((map ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    pbf.writeMessage(field, (_: null, w) => {
      w.writeStringField(1, key);
      w.writeMessage(2, (__: null, q) => q.writeStringField(1, value), null);
    }, null);
  }
}

const objectMeta: Writer = (meta, pbf) => {
  // Go writes every proto2 string, empty or not.
  pbf.writeStringField(1, (meta.name as string | undefined) ?? '');
  pbf.writeStringField(2, '');
  pbf.writeStringField(3, (meta.namespace as string | undefined) ?? '');
  str(pbf, 5, meta.uid);
  str(pbf, 6, meta.resourceVersion);
  pbf.writeVarintField(7, 3);
  pbf.writeMessage(8, (_: null, t) => t.writeVarintField(1, 1_764_547_200), null);
  stringMap(pbf, 11, meta.labels);
  stringMap(pbf, 12, meta.annotations);
  // A managedFields entry: manager, operation, fieldsV1 as raw bytes.
  pbf.writeMessage(17, (_: null, m) => {
    m.writeStringField(1, 'kubelet');
    m.writeStringField(2, 'Update');
    m.writeMessage(7, (__: null, f) => f.writeBytesField(1, new TextEncoder().encode('{"f:status":{}}')), null);
  }, null);
};

const resources: Writer = (r, pbf) => {
  quantityMap(pbf, 1, r.limits);
  quantityMap(pbf, 2, r.requests);
};

const container: Writer = (c, pbf) => {
  pbf.writeStringField(1, (c.name as string | undefined) ?? '');
  pbf.writeStringField(2, 'public.ecr.aws/cuda:12');
  pbf.writeMessage(7, (_: null, e) => {
    e.writeStringField(1, 'NCCL_DEBUG');
    e.writeStringField(2, 'INFO');
  }, null);
  if (c.resources !== undefined) pbf.writeMessage(8, resources, c.resources as Json);
  pbf.writeStringField(13, '/dev/termination-log');
  str(pbf, 24, c.restartPolicy);
};

const podSpec: Writer = (spec, pbf) => {
  for (const c of (spec.containers ?? []) as Json[]) pbf.writeMessage(2, container, c);
  pbf.writeStringField(3, 'Always');
  pbf.writeVarintField(4, 30);
  pbf.writeStringField(10, (spec.nodeName as string | undefined) ?? '');
  for (const c of (spec.initContainers ?? []) as Json[]) pbf.writeMessage(20, container, c);
  pbf.writeVarintField(25, 0);
  quantityMap(pbf, 32, spec.overhead);
  if (spec.resources !== undefined) pbf.writeMessage(40, resources, spec.resources as Json);
};

const podStatus: Writer = (status, pbf) => {
  pbf.writeStringField(1, (status.phase as string | undefined) ?? '');
  pbf.writeMessage(2, (_: null, c) => {
    c.writeStringField(1, 'Ready');
    c.writeStringField(2, 'True');
  }, null);
  pbf.writeStringField(5, '10.0.1.17');
};

export const writePod: Writer = (pod, pbf) => {
  pbf.writeMessage(1, objectMeta, (pod.metadata ?? {}) as Json);
  pbf.writeMessage(2, podSpec, (pod.spec ?? {}) as Json);
  pbf.writeMessage(3, podStatus, (pod.status ?? {}) as Json);
};

export const writeNode: Writer = (node, pbf) => {
  pbf.writeMessage(1, objectMeta, (node.metadata ?? {}) as Json);
  pbf.writeMessage(2, (_: null, spec) => spec.writeStringField(3, 'aws:///us-east-1a/i-0abc'), null);
  pbf.writeMessage(3, (status: Json, w) => {
    quantityMap(w, 1, status.capacity);
    quantityMap(w, 2, status.allocatable);
    w.writeStringField(3, '');
    // NodeCondition: type 1, status 2, lastHeartbeatTime 3 and lastTransitionTime 4 (Time: seconds 1), reason 5, message 6.
    for (const condition of (status.conditions ?? []) as Json[]) {
      w.writeMessage(4, (c: Json, cw) => {
        cw.writeStringField(1, String(c.type));
        cw.writeStringField(2, String(c.status));
        for (const field of [3, 4]) cw.writeMessage(field, (_: null, time) => time.writeVarintField(1, Date.parse(String(c.lastTransitionTime)) / 1000), null);
        cw.writeStringField(5, String(c.reason ?? ''));
        cw.writeStringField(6, String(c.message ?? ''));
      }, condition);
    }
    w.writeMessage(8, (__: null, image) => image.writeStringField(1, 'public.ecr.aws/eks/pause:3.10'), null);
  }, (node.status ?? {}) as Json);
};

/** The envelope around an object's own bytes. */
export function envelope(raw: Uint8Array, kind = 'PodList'): Uint8Array {
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_: null, t) => {
    t.writeStringField(1, 'v1');
    t.writeStringField(2, kind);
  }, null);
  pbf.writeBytesField(2, raw);
  pbf.writeStringField(3, '');
  pbf.writeStringField(4, '');
  const body = pbf.finish();
  const out = new Uint8Array(MAGIC.length + body.length);
  out.set(MAGIC);
  out.set(body, MAGIC.length);
  return out;
}

export interface ListOptions {
  readonly continueToken?: string;
  readonly resourceVersion?: string;
}

/** A PodList or NodeList body as kube-apiserver sends it. */
export function encodeList(items: readonly Json[], write: Writer, options: ListOptions = {}): Uint8Array {
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_: null, meta) => {
    meta.writeStringField(1, '');
    meta.writeStringField(2, options.resourceVersion ?? '');
    meta.writeStringField(3, options.continueToken ?? '');
  }, null);
  for (const item of items) pbf.writeMessage(2, write, item);
  return envelope(pbf.finish());
}

/** A metav1.Status error body. */
export function encodeStatus(code: number, reason: string, message: string): Uint8Array {
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_: null, meta) => meta.writeStringField(2, ''), null);
  pbf.writeStringField(2, 'Failure');
  pbf.writeStringField(3, message);
  pbf.writeStringField(4, reason);
  pbf.writeVarintField(6, code);
  return envelope(pbf.finish(), 'Status');
}
