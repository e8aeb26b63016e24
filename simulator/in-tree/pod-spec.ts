// What kube-scheduler's in-tree plugins read of a pod, parsed once: its
// scheduler, priority, tolerations, node selector and affinity, pod affinity
// terms, topology spread constraints, host ports and requests.
import { isRecord, metadataOf, recordList, stringField, stringMap } from '../../lambdas/scheduling/kube-json';
import type { LabelSelector, Labels, ObjectSelector } from '../../lambdas/scheduling/label-selector';
import { labelSelectorOf, nodeSelectorRequirementsOf, selectorMatches, withLabelKeys } from '../../lambdas/scheduling/label-selector';
import { podRequests } from '../../lambdas/scheduling/resources';

export interface Toleration {
  readonly key: string;
  readonly operator: string;
  readonly value: string;
  readonly effect: string;
}

/** A node selector term: its label requirements and metadata.name requirements; undefined parts are absent. */
export interface NodeSelectorTerm {
  readonly labels: LabelSelector | undefined;
  readonly fields: LabelSelector | undefined;
  /** A requirement did not parse: the term matches no node. */
  readonly invalid: boolean;
}

export interface AffinityTerm {
  /** null: matches no pod. */
  readonly selector: ObjectSelector;
  /** Namespaces named in the term, or the pod's own when it names none and has no namespaceSelector. */
  readonly namespaces: ReadonlySet<string>;
  /** null (none given): only `namespaces` count. */
  readonly namespaceSelector: ObjectSelector;
  readonly topologyKey: string;
}

export interface WeightedAffinityTerm {
  readonly term: AffinityTerm;
  readonly weight: number;
}

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  /** null: counts no pod. */
  readonly selector: ObjectSelector;
  readonly minDomains: number;
  readonly nodeAffinityPolicy: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy: 'Honor' | 'Ignore';
  readonly hard: boolean;
}

export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

export interface SchedPod {
  /** namespace/name */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly schedulerName: string;
  readonly nodeName: string | undefined;
  readonly priority: number;
  /** Succeeded or Failed: holds nothing. */
  readonly finished: boolean;
  readonly tolerations: readonly Toleration[];
  readonly nodeSelector: Labels | undefined;
  /** Required node affinity terms (ORed); undefined when the pod has none. */
  readonly requiredNodeTerms: readonly NodeSelectorTerm[] | undefined;
  readonly preferredNodeTerms: readonly { readonly weight: number; readonly term: NodeSelectorTerm }[];
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly preferredAffinity: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedAffinityTerm[];
  readonly spread: readonly SpreadConstraint[];
  readonly hostPorts: readonly HostPort[];
  /** What the pod requests, by resource (podRequests: what NodeResourcesFit counts). */
  readonly requests: ReadonlyMap<string, number>;
  /** What the fast path does not model, named for the run's notes. */
  readonly volumeClaims: boolean;
  readonly resourceClaims: boolean;
  readonly schedulingGates: boolean;
  /** The pod as read, for the extender's own parsing. */
  readonly raw: unknown;
}

export const DEFAULT_SCHEDULER = 'default-scheduler';

export function tolerationsOf(raw: unknown): Toleration[] {
  return recordList(raw).map((t) => ({
    key: stringField(t.key) ?? '',
    operator: stringField(t.operator) ?? 'Equal',
    value: stringField(t.value) ?? '',
    effect: stringField(t.effect) ?? '',
  }));
}

function nodeSelectorTermOf(raw: Readonly<Record<string, unknown>>): NodeSelectorTerm | undefined {
  const hasLabels = recordList(raw.matchExpressions).length > 0;
  const hasFields = recordList(raw.matchFields).length > 0;
  // An empty term is dropped, as kube-scheduler drops it.
  if (!hasLabels && !hasFields) return undefined;
  const labels = hasLabels ? nodeSelectorRequirementsOf(raw.matchExpressions) : undefined;
  const fields = hasFields ? nodeSelectorRequirementsOf(raw.matchFields) : undefined;
  const badField = fields?.some((f) => f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn')) ?? false;
  return { labels, fields, invalid: (hasLabels && labels === undefined) || (hasFields && fields === undefined) || badField };
}

function affinityTermOf(raw: Readonly<Record<string, unknown>>, pod: { namespace: string; labels: Labels }): AffinityTerm {
  const named = Array.isArray(raw.namespaces) ? raw.namespaces.filter((n): n is string => typeof n === 'string') : [];
  const namespaceSelector = labelSelectorOf(raw.namespaceSelector);
  const namespaces = new Set(named.length === 0 && namespaceSelector === null ? [pod.namespace] : named);
  let selector = labelSelectorOf(raw.labelSelector);
  // The API server folds matchLabelKeys/mismatchLabelKeys into the selector when the pod is created; a dump has them folded already.
  const matchKeys = stringList(raw.matchLabelKeys);
  if (matchKeys.length > 0) selector = withLabelKeys(selector, matchKeys, pod.labels);
  return { selector, namespaces, namespaceSelector, topologyKey: stringField(raw.topologyKey) ?? '' };
}

function stringList(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [];
}

function weightedTerms(raw: unknown, pod: { namespace: string; labels: Labels }): WeightedAffinityTerm[] {
  return recordList(raw)
    .filter((w) => isRecord(w.podAffinityTerm))
    .map((w) => ({ weight: typeof w.weight === 'number' ? w.weight : 0, term: affinityTermOf(w.podAffinityTerm as Readonly<Record<string, unknown>>, pod) }))
    .filter((w) => w.weight !== 0);
}

function spreadOf(raw: Readonly<Record<string, unknown>>, labels: Labels): SpreadConstraint {
  const selector = labelSelectorOf(raw.labelSelector);
  const policy = (value: unknown, fallback: 'Honor' | 'Ignore'): 'Honor' | 'Ignore' => (value === 'Honor' || value === 'Ignore' ? value : fallback);
  return {
    maxSkew: typeof raw.maxSkew === 'number' ? raw.maxSkew : 1,
    topologyKey: stringField(raw.topologyKey) ?? '',
    selector: withLabelKeys(selector, stringList(raw.matchLabelKeys), labels),
    minDomains: typeof raw.minDomains === 'number' ? raw.minDomains : 1,
    nodeAffinityPolicy: policy(raw.nodeAffinityPolicy, 'Honor'),
    nodeTaintsPolicy: policy(raw.nodeTaintsPolicy, 'Ignore'),
    hard: raw.whenUnsatisfiable !== 'ScheduleAnyway',
  };
}

function hostPortsOf(spec: Readonly<Record<string, unknown>>): HostPort[] {
  const containers = [...recordList(spec.initContainers).filter((c) => c.restartPolicy === 'Always'), ...recordList(spec.containers)];
  const out: HostPort[] = [];
  for (const container of containers) {
    for (const port of recordList(container.ports)) {
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (hostPort <= 0) continue;
      out.push({ ip: stringField(port.hostIP) || '0.0.0.0', protocol: stringField(port.protocol) || 'TCP', port: hostPort });
    }
  }
  return out;
}

export function parseSchedPod(raw: unknown): SchedPod {
  const metadata = metadataOf(raw);
  const spec = isRecord(raw) && isRecord(raw.spec) ? raw.spec : {};
  const status = isRecord(raw) && isRecord(raw.status) ? raw.status : {};
  const namespace = stringField(metadata.namespace) ?? 'default';
  const name = stringField(metadata.name) ?? '';
  const labels = stringMap(metadata.labels);
  const self = { namespace, labels };
  const affinity = isRecord(spec.affinity) ? spec.affinity : {};
  const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const podAffinity = isRecord(affinity.podAffinity) ? affinity.podAffinity : {};
  const podAntiAffinity = isRecord(affinity.podAntiAffinity) ? affinity.podAntiAffinity : {};
  const required = isRecord(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  const phase = stringField(status.phase);
  const nodeSelector = isRecord(spec.nodeSelector) ? stringMap(spec.nodeSelector) : undefined;
  return {
    key: `${namespace}/${name}`,
    namespace,
    name,
    labels,
    schedulerName: stringField(spec.schedulerName) || DEFAULT_SCHEDULER,
    nodeName: stringField(spec.nodeName) || undefined,
    priority: typeof spec.priority === 'number' ? spec.priority : 0,
    finished: phase === 'Succeeded' || phase === 'Failed',
    tolerations: tolerationsOf(spec.tolerations),
    nodeSelector: nodeSelector !== undefined && Object.keys(nodeSelector).length > 0 ? nodeSelector : undefined,
    requiredNodeTerms: required === undefined ? undefined : recordList(required.nodeSelectorTerms).map(nodeSelectorTermOf).filter((t) => t !== undefined),
    preferredNodeTerms: recordList(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution)
      .map((p) => ({ weight: typeof p.weight === 'number' ? p.weight : 0, term: isRecord(p.preference) ? nodeSelectorTermOf(p.preference) : undefined }))
      .filter((p): p is { weight: number; term: NodeSelectorTerm } => p.weight !== 0 && p.term !== undefined),
    requiredAffinity: recordList(podAffinity.requiredDuringSchedulingIgnoredDuringExecution).map((t) => affinityTermOf(t, self)),
    requiredAntiAffinity: recordList(podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution).map((t) => affinityTermOf(t, self)),
    preferredAffinity: weightedTerms(podAffinity.preferredDuringSchedulingIgnoredDuringExecution, self),
    preferredAntiAffinity: weightedTerms(podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution, self),
    spread: recordList(spec.topologySpreadConstraints).map((c) => spreadOf(c, labels)),
    hostPorts: hostPortsOf(spec),
    requests: podRequests(raw).requests,
    volumeClaims: recordList(spec.volumes).some((v) => isRecord(v.persistentVolumeClaim) || isRecord(v.ephemeral)),
    resourceClaims: recordList(spec.resourceClaims).length > 0,
    schedulingGates: recordList(spec.schedulingGates).length > 0,
    raw,
  };
}

/** The labels kube-scheduler sees on a namespace the dump does not describe: the one the API server always sets. */
export function namespaceLabels(namespace: string): Labels {
  return { 'kubernetes.io/metadata.name': namespace };
}

/** AffinityTerm.Matches: the pod is in one of the term's namespaces (or one its namespaceSelector picks) and has the labels. */
export function termMatches(term: AffinityTerm, pod: SchedPod): boolean {
  if (!term.namespaces.has(pod.namespace) && !selectorMatches(term.namespaceSelector, namespaceLabels(pod.namespace))) return false;
  return selectorMatches(term.selector, pod.labels);
}
