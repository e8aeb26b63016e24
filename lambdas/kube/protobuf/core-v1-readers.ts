import type { PbfReader } from 'pbf';
import type { FieldReader } from './protobuf-fields';
import { LENGTH_DELIMITED, readEmbedded, readQuantityMapEntry, readSharedText, readStringMapEntry, readText } from './protobuf-fields';

/**
 * Pods and Nodes from their protobuf form into the JSON shape, holding only
 * the fields the extender reads: podInfoFromKubernetes, podDemand,
 * nodeInfoFromKubernetes and the collections' keys. Every other field is
 * skipped by its length. Field numbers are those of k8s.io/api/core/v1 and
 * k8s.io/apimachinery/pkg/apis/meta/v1 generated.proto (stable: protobuf
 * field numbers are never reused). A reducer that starts reading another
 * field must have it added here, and test/e2e/kube-protobuf-lists.test.ts
 * compares the two forms, as listed by a real kube-apiserver, field by field.
 */

type Json = Record<string, unknown>;

/**
 * The API server writes a proto2 string field even when it is empty, where
 * its JSON omits it (omitempty): an empty string is left out, so both forms
 * give the same object.
 */
function setText(into: Json, key: string, pbf: PbfReader, read: (pbf: PbfReader) => string = readText): void {
  const text = read(pbf);
  if (text !== '') into[key] = text;
}

/** setText for a value many items share (namespace, container name, phase): decoded once (text-intern.ts). */
function setSharedText(into: Json, key: string, pbf: PbfReader): void {
  setText(into, key, pbf, readSharedText);
}

/** ObjectMeta: name 1, namespace 3, uid 5, resourceVersion 6, labels 11, annotations 12. */
const readObjectMeta: FieldReader<Json> = (field, meta, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  switch (field) {
    case 1:
      setText(meta, 'name', pbf);
      break;
    case 3:
      setSharedText(meta, 'namespace', pbf);
      break;
    case 5:
      setText(meta, 'uid', pbf);
      break;
    case 6:
      setText(meta, 'resourceVersion', pbf);
      break;
    case 11:
      readStringMapEntry(pbf, (meta.labels ??= {}) as Record<string, string>);
      break;
    case 12:
      readStringMapEntry(pbf, (meta.annotations ??= {}) as Record<string, string>);
      break;
  }
};

/** ResourceRequirements: limits 1, requests 2. */
const readResources: FieldReader<Json> = (field, resources, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) readQuantityMapEntry(pbf, (resources.limits ??= {}) as Record<string, string>);
  else if (field === 2) readQuantityMapEntry(pbf, (resources.requests ??= {}) as Record<string, string>);
};

/** Container: name 1, resources 8, restartPolicy 24 (Always marks a sidecar among the init containers). */
const readContainer: FieldReader<Json> = (field, container, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) setSharedText(container, 'name', pbf);
  else if (field === 8) container.resources = readEmbedded(pbf, readResources, {});
  else if (field === 24) setSharedText(container, 'restartPolicy', pbf);
};

/** PodSpec: containers 2, nodeName 10, initContainers 20, overhead 32, resources 40 (pod-level). */
const readPodSpec: FieldReader<Json> = (field, spec, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  switch (field) {
    case 2:
      ((spec.containers ??= []) as Json[]).push(readEmbedded(pbf, readContainer, {}));
      break;
    case 10:
      setText(spec, 'nodeName', pbf);
      break;
    case 20:
      ((spec.initContainers ??= []) as Json[]).push(readEmbedded(pbf, readContainer, {}));
      break;
    case 32:
      readQuantityMapEntry(pbf, (spec.overhead ??= {}) as Record<string, string>);
      break;
    case 40:
      spec.resources = readEmbedded(pbf, readResources, {});
      break;
  }
};

/** PodStatus: phase 1. */
const readPodStatus: FieldReader<Json> = (field, status, pbf) => {
  if (field === 1 && pbf.type === LENGTH_DELIMITED) setSharedText(status, 'phase', pbf);
};

/** Pod: metadata 1, spec 2, status 3. */
const readPodField: FieldReader<Json> = (field, pod, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) pod.metadata = readEmbedded(pbf, readObjectMeta, {});
  else if (field === 2) pod.spec = readEmbedded(pbf, readPodSpec, {});
  else if (field === 3) pod.status = readEmbedded(pbf, readPodStatus, {});
};

/**
 * NodeCondition: type 1, status 2, reason 5, message 6 (the node monitoring
 * agent's GPU health; the times are not read, so not kept).
 */
const readNodeCondition: FieldReader<Json> = (field, condition, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) setSharedText(condition, 'type', pbf);
  else if (field === 2) setSharedText(condition, 'status', pbf);
  else if (field === 5) setSharedText(condition, 'reason', pbf);
  else if (field === 6) setText(condition, 'message', pbf);
};

/** NodeStatus: capacity 1, allocatable 2, conditions 4. */
const readNodeStatus: FieldReader<Json> = (field, status, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) readQuantityMapEntry(pbf, (status.capacity ??= {}) as Record<string, string>);
  else if (field === 2) readQuantityMapEntry(pbf, (status.allocatable ??= {}) as Record<string, string>);
  else if (field === 4) ((status.conditions ??= []) as Json[]).push(readEmbedded(pbf, readNodeCondition, {}));
};

/** Node: metadata 1, status 3 (the spec's taints and unschedulable are kube-scheduler's to judge, not ours). */
const readNodeField: FieldReader<Json> = (field, node, pbf) => {
  if (pbf.type !== LENGTH_DELIMITED) return;
  if (field === 1) node.metadata = readEmbedded(pbf, readObjectMeta, {});
  else if (field === 3) node.status = readEmbedded(pbf, readNodeStatus, {});
};

/** One item of a PodList. */
export function readPod(pbf: PbfReader): Json {
  return readEmbedded(pbf, readPodField, {});
}

/** One item of a NodeList. */
export function readNode(pbf: PbfReader): Json {
  return readEmbedded(pbf, readNodeField, {});
}
