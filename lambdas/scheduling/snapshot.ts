import type { GpuClaim } from './dra-claims';
import { gpuClaimFromKubernetes } from './dra-claims';
import type { DraGpuSlice, DraNodeGpus } from './dra-gpus';
import { draGpusByNode, draGpuSliceFromKubernetes } from './dra-gpus';
import { isRecord } from './kube-json';
import type { NodeInfo } from './node-info';
import { nodeInfoFromKubernetes } from './node-info';
import type { PodInfo } from './pod-info';
import { podInfoFromKubernetes } from './pod-info';

/** What Dynamic Resource Allocation says of the cluster's GPUs. */
export interface DraInventory {
  /** Each node's GPUs in NVIDIA's ResourceSlices, claimed ones counted (see draGpusByNode). */
  readonly gpusByNode: ReadonlyMap<string, DraNodeGpus>;
  /** ResourceClaims for NVIDIA GPUs by `namespace/name`, for what a pending pod's claims ask (claimedGpuDemand). */
  readonly claims: ReadonlyMap<string, GpuClaim>;
}

export const NO_DRA: DraInventory = { gpusByNode: new Map(), claims: new Map() };

/**
 * The cluster as the plugins see it during one scheduling cycle: nodes with
 * their bound pods already accounted, looked up by name in O(1), and bound
 * pods indexed by namespace for peer lookups. Built once per cluster-cache
 * refresh (extender) or once per run and then mutated by `bind` (simulator).
 */
export class Snapshot {
  private readonly byName = new Map<string, NodeInfo>();
  private byNamespace = new Map<string, PodInfo[]>();
  private podList: PodInfo[] = [];
  /** Set for overlays: lookups of nodes not in `nodes` fall through to it. */
  private base: Snapshot | undefined;
  /** True while the pod indexes are the base's arrays (copied on first bind). */
  private sharesPods = false;

  constructor(
    /** The candidate nodes. */
    readonly nodes: readonly NodeInfo[],
    pods: Iterable<PodInfo> = [],
    /**
     * The GPUs NVIDIA's ResourceSlices give each node, as the nodes were
     * built with: request Node objects (Nodes mode) are read against it,
     * since a Node object alone does not say what a DRA node has; and the
     * GPU claims pending pods reference.
     */
    readonly dra: DraInventory = NO_DRA,
  ) {
    for (const node of nodes) this.byName.set(node.name, node);
    for (const pod of pods) this.bind(pod);
  }

  /**
   * A snapshot whose candidates are `nodes` (e.g. the Node objects of one
   * extender request) laid over `base` (the cached cluster): each node takes
   * over the pods bound to the same-named base node, other node lookups fall
   * through to the base (peers may sit on nodes that are not candidates), and
   * the pod indexes are the base's. The base is never modified.
   */
  static overlay(base: Snapshot, nodes: readonly NodeInfo[]): Snapshot {
    const view = new Snapshot(nodes, [], base.dra);
    for (const node of nodes) {
      const previous = base.getNode(node.name);
      if (previous === undefined || previous === node) continue;
      for (const pod of previous.pods) node.addPod(pod, previous.devicesOf(pod.uid));
    }
    view.base = base;
    view.podList = base.podList;
    view.byNamespace = base.byNamespace;
    view.sharesPods = true;
    return view;
  }

  /**
   * A snapshot of nodes that already hold their pods (bound with
   * NodeInfo.addPod by the caller, see MirrorSnapshots), and every bound pod,
   * also those on nodes it does not hold: what the constructor builds, without
   * binding anything again.
   */
  static ofBoundNodes(nodes: readonly NodeInfo[], pods: readonly PodInfo[], dra: DraInventory = NO_DRA): Snapshot {
    const snapshot = new Snapshot(nodes, [], dra);
    for (const pod of pods) snapshot.indexPod(pod);
    return snapshot;
  }

  /** A GPU ResourceClaim by `namespace/name` (see GpuClaimLookup). */
  readonly gpuClaim = (key: string): GpuClaim | undefined => this.dra.claims.get(key);

  /** Any known node by name. */
  getNode(name: string): NodeInfo | undefined {
    return this.byName.get(name) ?? this.base?.getNode(name);
  }

  /** All bound pods, including those on nodes the snapshot does not hold. */
  get pods(): readonly PodInfo[] {
    return this.podList;
  }

  podsInNamespace(namespace: string): readonly PodInfo[] {
    return this.byNamespace.get(namespace) ?? [];
  }

  /**
   * Records a pod as bound to `pod.nodeName` and consumes its resources there.
   * Returns the devices it got (empty when the node is unknown or it asks for no GPU).
   */
  bind(pod: PodInfo, devices?: readonly number[]): readonly number[] {
    this.ownPods();
    this.indexPod(pod);
    return this.byName.get(pod.nodeName)?.addPod(pod, devices) ?? [];
  }

  /** Adds a pod to the pod list and its namespace's list (the indexes, not the node). */
  private indexPod(pod: PodInfo): void {
    this.podList.push(pod);
    let list = this.byNamespace.get(pod.namespace);
    if (list === undefined) this.byNamespace.set(pod.namespace, (list = []));
    list.push(pod);
  }

  /**
   * Removes a bound pod (it finished, or a simulator takes a tentative
   * placement back) and frees what it held. The pod lists are replaced, not
   * edited: what plugins keep per list (NetworkLocality's peer scans,
   * Fragmentation's learnt shapes) sees a new list and starts afresh, and a
   * list once handed out never shrinks. O(bound pods). False when the pod is
   * not bound here.
   */
  unbind(uid: string): boolean {
    const pod = this.podList.find((p) => p.uid === uid);
    if (pod === undefined) return false;
    this.ownPods();
    this.podList = this.podList.filter((p) => p !== pod);
    this.byNamespace.set(pod.namespace, (this.byNamespace.get(pod.namespace) ?? []).filter((p) => p !== pod));
    this.byName.get(pod.nodeName)?.removePod(uid);
    return true;
  }

  /** Copies the base's pod indexes before the first change to an overlay's. */
  private ownPods(): void {
    if (!this.sharesPods) return;
    this.podList = [...this.podList];
    this.byNamespace = new Map([...this.byNamespace].map(([ns, list]) => [ns, [...list]]));
    this.sharesPods = false;
  }
}

/**
 * Builds a snapshot from Kubernetes Node, Pod, ResourceSlice and
 * ResourceClaim JSON (list items); malformed items are skipped, and slices
 * of other drivers and claims for other devices ignored.
 */
export function snapshotFromKubernetes(
  nodes: readonly unknown[],
  pods: readonly unknown[] = [],
  resourceSlices: readonly unknown[] = [],
  resourceClaims: readonly unknown[] = [],
): Snapshot {
  const dra = draInventoryFromKubernetes(resourceSlices, resourceClaims);
  const infos: NodeInfo[] = [];
  for (const node of nodes) {
    if (!isRecord(node)) continue;
    const info = nodeInfoFromKubernetes(node, (name) => dra.gpusByNode.get(name));
    if (info !== undefined) infos.push(info);
  }
  const bound: PodInfo[] = [];
  for (const pod of pods) {
    const info = podInfoFromKubernetes(pod);
    if (info !== undefined) bound.push(info);
  }
  return new Snapshot(infos, bound, dra);
}

/** What NVIDIA's ResourceSlices and the GPU ResourceClaims (JSON list items) say. */
export function draInventoryFromKubernetes(resourceSlices: readonly unknown[], resourceClaims: readonly unknown[] = []): DraInventory {
  const slices: DraGpuSlice[] = [];
  for (const item of resourceSlices) {
    const slice = draGpuSliceFromKubernetes(item);
    if (slice !== undefined) slices.push(slice);
  }
  const claims = new Map<string, GpuClaim>();
  for (const item of resourceClaims) {
    const claim = gpuClaimFromKubernetes(item);
    if (claim !== undefined) claims.set(claim.key, claim);
  }
  return { gpusByNode: draGpusByNode(slices, claims.values()), claims };
}
