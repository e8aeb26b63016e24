// When each step of a scale-from-zero happened, as seen from the API server:
// watches on the bench's pods, the nodes and Karpenter's NodeClaims, each
// change stamped with this process's clock when it arrives. The objects' own
// timestamps have one-second precision, too coarse for stages of a second.
import { Watch, type KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { NODE_LABEL, NODE_TAINT } from '../../lambdas/scheduling/keys';

/** The moments of one node's life the bench reads, in ms of performance.now(). */
export interface NodeMoments {
  /** The Node object appeared (what a kubelet's registration creates). */
  registered: number;
  /** Its spec.providerID, which the NodeClaim's status carries from the launch on. */
  providerID?: string;
  /** First seen with our gpu.nvidia.com/model label. */
  labelled?: number;
  /** First seen carrying the start-up taint. */
  tainted?: number;
  /** First seen without the start-up taint after carrying it. */
  untainted?: number;
}

interface NodeClaimObject {
  metadata?: { name?: string };
  status?: { providerID?: string };
}

const hasStartupTaint = (node: V1Node): boolean => (node.spec?.taints ?? []).some((t) => t.key === NODE_TAINT.gpuLabelsPending);

export class ScaleFromZeroTimeline {
  /** Pod (namespace/name) → when it was first seen bound, and where. */
  readonly bound = new Map<string, { at: number; nodeName: string }>();
  readonly nodes = new Map<string, NodeMoments>();
  /** NodeClaim name → when it appeared, and its instance once launched (Karpenter names the node only at registration). */
  readonly nodeClaims = new Map<string, { created: number; providerID?: string }>();
  private readonly aborts: AbortController[] = [];
  private failure: unknown;

  private constructor(private readonly now: () => number) {}

  /** Starts the three watches; resolves once each has been opened. */
  static async start(kubeConfig: KubeConfig, now: () => number = () => performance.now()): Promise<ScaleFromZeroTimeline> {
    const timeline = new ScaleFromZeroTimeline(now);
    const watch = new Watch(kubeConfig);
    const done = (error: unknown): void => {
      // An abort at stop() ends each watch with an AbortError; anything else is a broken measurement.
      if (error !== null && error !== undefined && !(error instanceof Error && error.name === 'AbortError')) timeline.failure ??= error;
    };
    timeline.aborts.push(
      await watch.watch('/api/v1/pods', {}, (_phase, pod: V1Pod) => timeline.onPod(pod), done),
      await watch.watch('/api/v1/nodes', {}, (phase, node: V1Node) => timeline.onNode(phase, node), done),
      await watch.watch('/apis/karpenter.sh/v1/nodeclaims', {}, (_phase, claim: NodeClaimObject) => timeline.onNodeClaim(claim), done),
    );
    return timeline;
  }

  /** Throws what ended a watch early: stages read from a dead watch would be wrong. */
  check(): void {
    if (this.failure !== undefined) throw new Error(`a scale-from-zero watch failed: ${String(this.failure)}`);
  }

  /** The NodeClaim Karpenter launched for a node: the one whose instance it is. */
  nodeClaimOf(nodeName: string): { name: string; created: number } | undefined {
    const providerID = this.nodes.get(nodeName)?.providerID;
    if (providerID === undefined) return undefined;
    for (const [name, claim] of this.nodeClaims) if (claim.providerID === providerID) return { name, created: claim.created };
    return undefined;
  }

  stop(): void {
    for (const abort of this.aborts) abort.abort();
  }

  private onPod(pod: V1Pod): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const nodeName = pod.spec?.nodeName;
    if (nodeName && !this.bound.has(key)) this.bound.set(key, { at: this.now(), nodeName });
  }

  private onNode(phase: string, node: V1Node): void {
    const name = node.metadata?.name;
    if (!name || phase === 'DELETED') return;
    const at = this.now();
    let moments = this.nodes.get(name);
    if (moments === undefined) this.nodes.set(name, (moments = { registered: at }));
    moments.providerID ??= node.spec?.providerID || undefined;
    if (moments.labelled === undefined && node.metadata?.labels?.[NODE_LABEL.gpuModel] !== undefined) moments.labelled = at;
    const tainted = hasStartupTaint(node);
    if (tainted) moments.tainted ??= at;
    else if (moments.tainted !== undefined) moments.untainted ??= at;
  }

  private onNodeClaim(claim: NodeClaimObject): void {
    const name = claim.metadata?.name;
    if (!name) return;
    let entry = this.nodeClaims.get(name);
    if (entry === undefined) this.nodeClaims.set(name, (entry = { created: this.now() }));
    entry.providerID ??= claim.status?.providerID || undefined;
  }
}
