// The dump's objects as the exact path creates them in the local API
// server: what scheduling reads is kept, what would make the API server or
// its controllers refuse or remove them (uids, owners, status, computed
// priority) is dropped.
import { isRecord, metadataOf, stringField, stringMap } from '../lambdas/scheduling/kube-json';
import { HEALTH_CONDITIONS } from '../lambdas/scheduling/gpu-health-reasons';
import type { SchedPod } from './in-tree/pod-spec';

type KubeObject = Record<string, unknown>;

function keptMetadata(raw: unknown): KubeObject {
  const metadata = metadataOf(raw);
  const out: KubeObject = { name: stringField(metadata.name) };
  if (stringField(metadata.namespace) !== undefined) out.namespace = metadata.namespace;
  if (isRecord(metadata.labels)) out.labels = stringMap(metadata.labels);
  if (isRecord(metadata.annotations)) out.annotations = stringMap(metadata.annotations);
  return out;
}

/** The Node to create: labels, annotations, taints and cordon (the status is written next, as a kubelet would). */
export function nodeToCreate(raw: unknown): KubeObject {
  const spec = isRecord(raw) && isRecord(raw.spec) ? raw.spec : {};
  const kept: KubeObject = {};
  if (Array.isArray(spec.taints)) kept.taints = spec.taints;
  if (spec.unschedulable === true) kept.unschedulable = true;
  return { apiVersion: 'v1', kind: 'Node', metadata: keptMetadata(raw), spec: kept };
}

/**
 * The node's status patch: its capacity and allocatable, Ready (nothing else
 * here would set it), and the node monitoring agent's conditions from the
 * dump, which the extender's GpuHealth plugin reads (docs/health.md).
 */
export function nodeStatus(raw: unknown): KubeObject {
  const status = isRecord(raw) && isRecord(raw.status) ? raw.status : {};
  const now = new Date().toISOString();
  const health = Array.isArray(status.conditions)
    ? (status.conditions as unknown[]).filter((c) => isRecord(c) && HEALTH_CONDITIONS.includes(stringField(c.type) ?? ''))
    : [];
  return {
    status: {
      capacity: isRecord(status.capacity) ? status.capacity : status.allocatable,
      allocatable: isRecord(status.allocatable) ? status.allocatable : status.capacity,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'loaded by npm run simulate --exact', lastHeartbeatTime: now, lastTransitionTime: now }, ...health],
    },
  };
}

/**
 * The Pod to create: bound ones keep spec.nodeName, pending ones have none.
 * Priority and preemption policy come from the PriorityClass the API server
 * resolves (it rejects a pod whose numbers disagree with its class), so they
 * are dropped, as are ownerReferences (the garbage collector would delete a
 * pod whose owner does not exist).
 */
export function podToCreate(pod: SchedPod): KubeObject {
  const raw = pod.raw as KubeObject;
  const spec: KubeObject = { ...(isRecord(raw.spec) ? raw.spec : {}) };
  delete spec.priority;
  delete spec.preemptionPolicy;
  if (pod.nodeName === undefined) delete spec.nodeName;
  // A hand-written what-if pod may leave out what the API server requires but scheduling never reads.
  for (const key of ['containers', 'initContainers']) {
    if (Array.isArray(spec[key])) spec[key] = spec[key].map((c: unknown, i: number) => (isRecord(c) ? { name: `container-${i}`, image: 'simulated', ...c } : c));
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: keptMetadata(raw), spec };
}

/** Built-in classes the API server creates itself. */
const SYSTEM_CLASS = /^system-/;

/** One PriorityClass per class name the pods use, with the priority and preemption policy they carry. */
export function priorityClassesFor(pods: readonly SchedPod[]): KubeObject[] {
  const out = new Map<string, KubeObject>();
  for (const pod of pods) {
    const spec = isRecord(pod.raw) && isRecord(pod.raw.spec) ? pod.raw.spec : {};
    const name = stringField(spec.priorityClassName);
    if (name === undefined || name === '' || SYSTEM_CLASS.test(name) || out.has(name)) continue;
    const policy = stringField(spec.preemptionPolicy);
    out.set(name, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: pod.priority, ...(policy ? { preemptionPolicy: policy } : {}) });
  }
  return [...out.values()];
}

/** Namespaces the API server has from the start. */
export const BUILT_IN_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
