import type { KubePod } from './kube-json';
import { metadataOf, isRecord, stringField, stringMap } from './kube-json';
import type { ResourceDemand } from './resources';
import { podDemand } from './resources';

/** A pod bound (or assumed) on a node: who it is and what it consumes. */
export interface PodInfo {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly nodeName: string;
  readonly demand: ResourceDemand;
}

const FINISHED_PHASES = new Set(['Succeeded', 'Failed']);

/**
 * A PodInfo from Kubernetes Pod JSON; undefined for pods that hold nothing
 * (not bound, or finished). A running pod with an unparseable quantity is
 * counted with what could be read: it is already there, so we must not fail.
 */
export function podInfoFromKubernetes(pod: KubePod | unknown): PodInfo | undefined {
  const metadata = metadataOf(pod);
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const status = isRecord(pod) && isRecord(pod.status) ? pod.status : undefined;
  const nodeName = stringField(spec?.nodeName);
  if (nodeName === undefined || nodeName === '') return undefined;
  const phase = stringField(status?.phase);
  if (phase !== undefined && FINISHED_PHASES.has(phase)) return undefined;
  const namespace = stringField(metadata.namespace) ?? 'default';
  const name = stringField(metadata.name) ?? '';
  return {
    uid: stringField(metadata.uid) ?? `${namespace}/${name}`,
    namespace,
    name,
    labels: stringMap(metadata.labels),
    nodeName,
    demand: podDemand(pod).demand,
  };
}
