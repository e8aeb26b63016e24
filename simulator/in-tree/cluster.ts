// The cluster as kube-scheduler's in-tree plugins see it: each node's
// labels, taints and allocatable, the pods bound to it with what they
// request and the host ports they hold, and indexes of the pods whose
// affinity terms every cycle has to consult.
import { isRecord, metadataOf, recordList, stringField, stringMap } from '../../lambdas/scheduling/kube-json';
import type { Labels } from '../../lambdas/scheduling/label-selector';
import { resourceListOf } from '../../lambdas/scheduling/resources';
import type { HostPort, SchedPod } from './pod-spec';

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}

export interface SchedNode {
  readonly name: string;
  readonly labels: Labels;
  readonly taints: readonly Taint[];
  readonly unschedulable: boolean;
  readonly allocatable: ReadonlyMap<string, number>;
}

export function parseSchedNode(raw: unknown): SchedNode {
  const metadata = metadataOf(raw);
  const spec = isRecord(raw) && isRecord(raw.spec) ? raw.spec : {};
  const status = isRecord(raw) && isRecord(raw.status) ? raw.status : {};
  return {
    name: stringField(metadata.name) ?? '',
    labels: stringMap(metadata.labels),
    taints: recordList(spec.taints).map((t) => ({ key: stringField(t.key) ?? '', value: stringField(t.value) ?? '', effect: stringField(t.effect) ?? '' })),
    unschedulable: spec.unschedulable === true,
    allocatable: resourceListOf(status.allocatable),
  };
}

/** One node and what is bound to it. */
export class NodeState {
  readonly pods: SchedPod[] = [];
  readonly requested = new Map<string, number>();
  readonly ports: HostPort[] = [];

  constructor(
    readonly node: SchedNode,
    /** Position in the input, for stable tie-breaking and output order. */
    readonly index: number,
  ) {}

  add(pod: SchedPod): void {
    this.pods.push(pod);
    for (const [name, value] of pod.requests) this.requested.set(name, (this.requested.get(name) ?? 0) + value);
    this.ports.push(...pod.hostPorts);
  }
}

export interface BoundPod {
  readonly pod: SchedPod;
  readonly node: NodeState;
}

function hasAffinity(pod: SchedPod): boolean {
  return pod.requiredAffinity.length + pod.requiredAntiAffinity.length + pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0;
}

export class ClusterState {
  readonly nodes: readonly NodeState[];
  private readonly byName = new Map<string, NodeState>();
  /** Bound pods with any pod affinity term: the existing pods InterPodAffinity weighs against every incoming pod. */
  readonly withAffinity: BoundPod[] = [];
  /** Bound pods with a required anti-affinity term: they can reject an incoming pod. */
  readonly withRequiredAntiAffinity: BoundPod[] = [];
  /** Bound pods by namespace, for spread counts and the incoming pod's affinity terms. */
  private readonly byNamespace = new Map<string, BoundPod[]>();
  private readonly all: BoundPod[] = [];

  constructor(nodes: readonly SchedNode[]) {
    this.nodes = nodes.map((node, i) => new NodeState(node, i));
    for (const state of this.nodes) this.byName.set(state.node.name, state);
  }

  node(name: string): NodeState | undefined {
    return this.byName.get(name);
  }

  /** Binds `pod` to the named node; false when there is no such node. */
  bind(pod: SchedPod, nodeName: string): boolean {
    const node = this.byName.get(nodeName);
    if (node === undefined) return false;
    node.add(pod);
    const bound = { pod, node };
    this.all.push(bound);
    if (hasAffinity(pod)) this.withAffinity.push(bound);
    if (pod.requiredAntiAffinity.length > 0) this.withRequiredAntiAffinity.push(bound);
    let list = this.byNamespace.get(pod.namespace);
    if (list === undefined) this.byNamespace.set(pod.namespace, (list = []));
    list.push(bound);
    return true;
  }

  podsIn(namespace: string): readonly BoundPod[] {
    return this.byNamespace.get(namespace) ?? [];
  }

  /** Every bound pod in the namespaces `namespaces` names, or all when undefined. */
  podsInAny(namespaces: ReadonlySet<string> | undefined): readonly BoundPod[] {
    if (namespaces === undefined) return this.all;
    if (namespaces.size === 1) return this.podsIn([...namespaces][0] as string);
    return [...namespaces].flatMap((ns) => this.podsIn(ns));
  }
}
