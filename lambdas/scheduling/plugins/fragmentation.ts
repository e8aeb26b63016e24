import type { CycleState } from '../framework';
import { MAX_NODE_SCORE, stateKey } from '../framework';
import type { DeviceChoice } from '../device-choice';
import { modelMatches, modelTokens } from '../gpu-model';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodInfo } from '../pod-info';
import type { PodRequirements } from '../pod-requirements';
import type { Snapshot } from '../snapshot';
import type { ShapeSample, WorkloadShape } from './workload-shapes';
import { typicalShapes } from './workload-shapes';
import { FillWasteTables } from './fill-waste';

export const FRAGMENTATION_NAME = 'Fragmentation' as const;

export interface FragmentationOptions {
  /**
   * The shapes the cluster typically runs (see typicalShapes). When absent the
   * plugin derives them from the pods bound in the snapshot, so a live
   * cluster scores against its own workload (refreshed as the snapshot grows
   * by 5 %).
   */
  readonly shapes?: readonly WorkloadShape[];
  /** Share of bound pods the derived shapes must cover (default 0.95). */
  readonly coverage?: number;
  /**
   * Pseudo-pods counted with the bound ones when shapes are derived from a
   * short history: on a new cluster they say "jobs come in 1, 2, 4 and 8
   * GPUs", which keeps big nodes whole where the learnt shapes have nothing
   * to say yet.
   * @default PRIOR_SHAPES (1, 2, 4 and 8 whole GPUs)
   */
  readonly prior?: readonly ShapeSample[];
  /**
   * The prior is used while fewer GPU pods than this are bound; after that
   * the cluster's own workload alone decides. Measured on the openb trace
   * (10 seeds, alloc at 130 %): kept for 16 pods it costs 0.04 (default) and
   * 0.08 (gpuspec33) points, since its pseudo-pods outrank the trace's rare
   * shapes at the coverage cut; for the first pod only, 0.01, which is within
   * the seed-to-seed noise of that change (docs/simulator.md).
   * @default 1 (a cluster with no GPU pod bound yet)
   */
  readonly priorUntilPods?: number;
  /**
   * Weight of the filled-node view of stranded GPU against FGD's next-pod
   * view (1 − this). The filled-node view: what each device's free share
   * leaves once fitting typical pods have filled it (fillWaste), plus
   * the GPU those pods could take but the node's CPU left cannot feed (at
   * the fitting mix's CPU per GPU). 0 is the paper's FGD.
   * @default LOOKAHEAD_WEIGHT (0.5)
   */
  readonly lookahead?: number;
}

/**
 * The two views of stranded GPU weigh the same: FGD's (does the next typical
 * pod fit?) knows that a share only a rare shape fits is at risk; the
 * filled-node view knows that a share the next pod fits may still leave an
 * unusable rest, and that GPUs strand when the node's CPU runs out first
 * (a third of what FGD leaves stranded on the openb trace sits on nodes
 * with under 2 cores left). Either view alone strands more than both
 * (docs/simulator.md, ablation); 0.5 is the even blend, not a fitted value:
 * it is the only blend that was run before the held-out check.
 */
export const LOOKAHEAD_WEIGHT = 0.5;

/** The prior of typical shapes: one pseudo-pod each of 1, 2, 4 and 8 whole GPUs, no CPU. */
export const PRIOR_SHAPES: readonly ShapeSample[] = Object.freeze(
  [1, 2, 4, 8].map((gpuCount) => Object.freeze({ cpuMilli: 0, gpuCount, gpuMilli: GPU_MILLI })),
);

/**
 * On a time-sliced or MPS node, free share left on a GPU already being
 * shared counts this much as a fragment, and a node in use (some but not all
 * of it free) counts this much of one GPU more. A shape history of replicas
 * alone (a pure sharing cluster) sees no fragment anywhere, so without these
 * terms a sharer is a coin toss between a GPU already shared and an untouched
 * one, or an untouched node; with them, sharers fill shared GPUs first, then
 * the GPUs of nodes in use, and open an untouched node last (the order of the
 * FGD paper's GpuPacking), so untouched GPUs and nodes stay whole: free for a
 * pod that needs a GPU alone, or for consolidation. 5 % is the least that
 * still moves the 0..100 score by a point for any replica count (2 replicas:
 * 50 vs 49); the terms are bounded (at most ~4 points). Unshared nodes are
 * untouched, so trace results (no sharing there) do not move.
 */
export const SHARED_GPU_WHOLE_WEIGHT = 0.05;

/** GPU shapes that differ only in CPU, CPU thresholds sorted with cumulative weight. */
interface ShapeGroup {
  readonly milli: number;
  readonly count: number;
  readonly modelTokens: readonly (readonly string[])[] | undefined;
  readonly cpus: Float64Array;
  readonly cumulative: Float64Array;
  readonly cumulativeCpu: Float64Array;
}

/**
 * Expected stranded GPU of a node against the workload's shapes, after the
 * FGD paper (Weng et al., "Beware of Fragmentation", ATC'23): for each typical
 * shape the node cannot host (wrong model, too few devices with that much
 * free, or too little CPU) all its free GPU counts as fragment; for a shape
 * it can host, only the devices too small for it do. Weighted by frequency:
 *   frag = free − Σ_hostable weight × (free on devices ≥ the shape's share).
 * With a lookahead weight λ the score's measure is
 *   (1 − λ) × frag + λ × (Σ_devices fillWaste(free) + GPU the CPU cannot feed),
 * the filled-node view (see FragmentationOptions.lookahead); the outcome
 * metrics keep the paper's frag (λ = 0, createStrandedMeasure).
 */
class FragmentationModel {
  private readonly groups: readonly ShapeGroup[];
  private readonly perModel = new Map<string, readonly ShapeGroup[]>();
  private readonly fillWaste = new FillWasteTables();
  // The shapes a node can host, reused across calls (the replay makes millions).
  private itemMillis = new Int32Array(16);
  private itemWeights = new Float64Array(16);

  /** `lookahead`: weight of the filled-node view (fillWaste, and the CPU the node has left) against FGD's next-pod view; 0 = FGD alone. */
  constructor(
    shapes: readonly WorkloadShape[],
    private readonly lookahead = 0,
  ) {
    const total = shapes.reduce((sum, s) => sum + Math.max(0, s.weight), 0);
    const byGroup = new Map<string, { shape: WorkloadShape; entries: { cpu: number; weight: number }[] }>();
    for (const shape of shapes) {
      if (shape.gpuCount <= 0 || !(shape.weight > 0) || total === 0) continue;
      const milli = Math.min(shape.gpuMilli, GPU_MILLI);
      const key = `${shape.gpuCount}|${milli}|${(shape.gpuModels ?? []).join('|')}`;
      let group = byGroup.get(key);
      if (group === undefined) byGroup.set(key, (group = { shape, entries: [] }));
      group.entries.push({ cpu: shape.cpuMilli, weight: shape.weight / total });
    }
    this.groups = [...byGroup.values()].map(({ shape, entries }) => {
      entries.sort((a, b) => a.cpu - b.cpu);
      const cumulative = new Float64Array(entries.length);
      let running = 0;
      entries.forEach((e, i) => (cumulative[i] = running += e.weight));
      const cumulativeCpu = new Float64Array(entries.length);
      let runningCpu = 0;
      entries.forEach((e, i) => (cumulativeCpu[i] = runningCpu += e.weight * e.cpu));
      return {
        milli: Math.min(shape.gpuMilli, GPU_MILLI),
        count: shape.gpuCount,
        modelTokens: shape.gpuModels && shape.gpuModels.length > 0 ? shape.gpuModels.map(modelTokens) : undefined,
        cpus: Float64Array.from(entries, (e) => e.cpu),
        cumulative,
        cumulativeCpu,
      };
    });
  }

  /** The GPU shape groups allowed on nodes of this model (memoised per model key). */
  groupsFor(node: NodeInfo): readonly ShapeGroup[] {
    let groups = this.perModel.get(node.gpuModelKey);
    if (groups === undefined) {
      groups = this.groups.filter(
        (g) => g.modelTokens === undefined || (node.gpuModelTokens.length > 0 && g.modelTokens.some((t) => modelMatches(t, node.gpuModelTokens))),
      );
      this.perModel.set(node.gpuModelKey, groups);
    }
    return groups;
  }

  fragment(devices: ArrayLike<number>, cpuLeft: number, groups: readonly ShapeGroup[], wholeWeight: number): number {
    return this.fragmentWith(devices, groups, this.weightsFor(groups, cpuLeft, new Float64Array(groups.length)), wholeWeight, cpuLeft);
  }

  /** Each group's weight that fits in cpuLeft, written into `into` (parallel to groups). */
  weightsFor(groups: readonly ShapeGroup[], cpuLeft: number, into: Float64Array): Float64Array {
    for (let g = 0; g < groups.length; g++) into[g] = weightUpTo(groups[g] as ShapeGroup, cpuLeft);
    return into;
  }

  /**
   * Fragment given the groups' CPU-fitting weights (so candidates on one node
   * share that work), plus `wholeWeight` × (the free share on partly used
   * devices, and one GPU when the node is in use): SHARED_GPU_WHOLE_WEIGHT on
   * shared nodes, else 0.
   */
  fragmentWith(devices: ArrayLike<number>, groups: readonly ShapeGroup[], weights: Float64Array, wholeWeight: number, cpuLeft: number): number {
    let free = 0;
    let partial = 0;
    for (let i = 0; i < devices.length; i++) {
      const d = devices[i] ?? 0;
      free += d;
      if (d < GPU_MILLI) partial += d;
    }
    if (free === 0) return 0;
    if (this.itemMillis.length < groups.length) {
      this.itemMillis = new Int32Array(groups.length * 2);
      this.itemWeights = new Float64Array(groups.length * 2);
    }
    let items = 0;
    let usable = 0;
    let cpuOfMix = 0;
    let gpuOfMix = 0;
    for (let g = 0; g < groups.length; g++) {
      const weight = weights[g] ?? 0;
      if (weight === 0) continue;
      const group = groups[g] as ShapeGroup;
      let fits = 0;
      let onFitting = 0;
      for (let i = 0; i < devices.length; i++) {
        const d = devices[i] ?? 0;
        if (d >= group.milli) {
          fits++;
          onFitting += d;
        }
      }
      if (fits >= group.count) {
        usable += weight * onFitting;
        // The filled view fills each device on its own, so it takes the shapes
        // that use one device (shares, single GPUs). A multi-GPU shape needs
        // several whole devices at once: that is FGD's hostability test, and
        // counting it per device would call 7 free GPUs fillable by 4-GPU pods.
        if (this.lookahead > 0 && group.count === 1) {
          this.itemMillis[items] = group.milli;
          this.itemWeights[items++] = weight;
          cpuOfMix += cpuUpTo(group, cpuLeft);
          gpuOfMix += weight * group.milli;
        }
      }
    }
    const inUse = free < devices.length * GPU_MILLI ? GPU_MILLI : 0;
    let fragment = free - usable;
    if (this.lookahead > 0) {
      const table = this.fillWaste.tableFor(this.itemMillis, this.itemWeights, items);
      let waste = 0;
      let fillable = 0;
      for (let i = 0; i < devices.length; i++) {
        const d = Math.min(devices[i] ?? 0, GPU_MILLI);
        const w = table.at(d);
        waste += w;
        fillable += d - w;
      }
      // The node's CPU runs out first when the fitting pods' CPU for what the
      // devices can still take exceeds what is left: the rest of the GPU stays idle.
      if (cpuOfMix > 0 && gpuOfMix > 0) {
        const absorbable = cpuLeft / (cpuOfMix / gpuOfMix);
        if (fillable > absorbable) waste += fillable - absorbable;
      }
      fragment = (1 - this.lookahead) * fragment + this.lookahead * waste;
    }
    return fragment + wholeWeight * (partial + inUse);
  }
}

/** The whole-GPU term's weight on this node: only where the device plugin shares GPUs. */
function wholeWeightOf(node: NodeInfo): number {
  return node.gpuSharing === undefined ? 0 : SHARED_GPU_WHOLE_WEIGHT;
}

/** How many of the group's shapes (sorted by CPU) fit in cpuLeft. */
function fittingEntries(group: ShapeGroup, cpuLeft: number): number {
  const { cpus } = group;
  let lo = 0;
  let hi = cpus.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cpus[mid] ?? 0) <= cpuLeft) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Total weight of the group's shapes whose CPU fits in cpuLeft. */
function weightUpTo(group: ShapeGroup, cpuLeft: number): number {
  const n = fittingEntries(group, cpuLeft);
  return n === 0 ? 0 : (group.cumulative[n - 1] ?? 0);
}

/** Σ weight × CPU of the group's shapes whose CPU fits in cpuLeft. */
function cpuUpTo(group: ShapeGroup, cpuLeft: number): number {
  const n = fittingEntries(group, cpuLeft);
  return n === 0 ? 0 : (group.cumulativeCpu[n - 1] ?? 0);
}

/**
 * The typical shapes of the GPU pods bound in a snapshot, as the plugin
 * derives them when no shapes are given. GPU pods only: a real cluster runs
 * far more CPU-only pods (system daemons, services) than GPU pods, and
 * counted as shapes they push every GPU shape out of the typical set, which
 * flattens the score to a tie. In device terms of the node each pod runs on,
 * so a time-sliced replica is the share of a GPU it is, not a whole GPU.
 */
export function snapshotShapes(snapshot: Snapshot, options: Pick<FragmentationOptions, 'coverage' | 'prior' | 'priorUntilPods'> = {}): WorkloadShape[] {
  const prior = options.prior ?? PRIOR_SHAPES;
  const gpuPods = snapshot.pods.filter((p) => p.demand.gpuCount > 0);
  return typicalShapes(
    gpuPods
      .map((p) => {
        const node = snapshot.getNode(p.nodeName);
        const gpuCount = node === undefined ? p.demand.gpuCount : node.deviceCountOf(p.demand);
        const gpuMilli = node === undefined ? p.demand.gpuMilli : node.deviceMilliOf(p.demand);
        return { cpuMilli: p.demand.cpuMilli, gpuCount, gpuMilli };
      })
      .filter((shape) => shape.gpuCount > 0)
      .concat(gpuPods.length < (options.priorUntilPods ?? 1) ? prior : []),
    options.coverage ?? 0.95,
  );
}

/**
 * Free GPU milli on a node that the shapes cannot use (the FGD measure of
 * stranded GPU, without the plugin's tie-breaking terms): what the outcome
 * metrics report and the trace benchmark minimises.
 */
export function createStrandedMeasure(shapes: readonly WorkloadShape[]): (node: NodeInfo) => number {
  const model = new FragmentationModel(shapes);
  return (node) => model.fragment(node.devices, node.allocatableCpuMilli - node.requestedCpuMilli, model.groupsFor(node), 0);
}

interface Scored {
  readonly score: number;
  /** Device for a fractional share; -1 = leave it to the default. */
  readonly device: number;
}

/** What a node looked like when its memo was filled; any change empties the memo. */
interface NodeMemo {
  readonly model: FragmentationModel;
  /** The node's stateVersion: a bind or an unbind since then empties the memo. */
  readonly version: number;
  readonly before: number;
  /**
   * The pod shape scored last on this node and its result, inline: cycles
   * in a row mostly score one shape (a job's members, a replica set), and a
   * hit that reads only this object is what keeps scoring thousands of
   * nodes cheap once their memos are out of the CPU's caches (each further
   * object a hit reads is one more cache miss per node).
   */
  lastKey: string;
  lastScore: number;
  lastDevice: number;
  /** Every other shape scored since the node last changed; made when a second shape comes. */
  others: Map<string, Scored> | undefined;
}

const REFRESH_GROWTH = 0.05;

/** What one cycle scores against: the model for the snapshot's pods and the pod's shape key. */
interface CycleModel {
  readonly pod: PodRequirements;
  readonly pods: readonly PodInfo[];
  readonly podCount: number;
  readonly model: FragmentationModel;
  readonly key: string;
}

const podKeys = new WeakMap<PodRequirements, string>();

/** What the score depends on: the node state after placement, so CPU and GPU demand only (not models or memory). */
function podKey(pod: PodRequirements): string {
  let key = podKeys.get(pod);
  if (key === undefined) {
    const { cpuMilli, gpuCount, gpuMilli } = pod.demand;
    key = `${cpuMilli}|${gpuCount}|${gpuCount > 0 ? gpuMilli : 0}`;
    podKeys.set(pod, key);
  }
  return key;
}

/** sigmoid(reduction / 1000 milli) on 0..100, truncated, as in the paper's FGD score. */
function toScore(reduction: number): number {
  return Math.trunc(MAX_NODE_SCORE / (1 + Math.exp(-reduction / GPU_MILLI)));
}

/**
 * Fragmentation-gradient score (FGD): prefer the node, and for a fractional
 * share the device, whose expected stranded GPU grows least (or shrinks
 * most) when the pod lands there. Results are memoised per node and pod
 * shape until the node changes, so a full trace replay stays fast.
 */
export function createFragmentationScore(options: FragmentationOptions = {}): DeviceChoice {
  const coverage = options.coverage ?? 0.95;
  const prior = options.prior ?? PRIOR_SHAPES;
  const priorUntilPods = options.priorUntilPods ?? 1;
  const lookahead = options.lookahead ?? LOOKAHEAD_WEIGHT;
  if (!(lookahead >= 0 && lookahead <= 1)) throw new RangeError(`${FRAGMENTATION_NAME} lookahead must be in 0..1, got ${lookahead}`);
  const fixed = options.shapes === undefined ? undefined : new FragmentationModel(options.shapes, lookahead);
  // Keyed by the snapshot's pod list, which overlays of one cached cluster share
  // (the extender builds one per request), so the shapes are derived once per refresh.
  const derived = new WeakMap<readonly PodInfo[], { pods: number; model: FragmentationModel }>();
  const memos = new WeakMap<NodeInfo, NodeMemo>();
  // One slot per plugin instance: two instances with different shapes can share a cycle.
  const CYCLE = stateKey<CycleModel>(`${FRAGMENTATION_NAME}/cycle`);
  let scratch = new Int32Array(8);

  const modelFor = (snapshot: Snapshot): FragmentationModel => {
    if (fixed !== undefined) return fixed;
    const pods = snapshot.pods;
    const cached = derived.get(pods);
    // A list that keeps growing (the simulator binds into it) refreshes the
    // shapes after 5 % more pods: each refresh empties every node memo.
    if (cached !== undefined && pods.length < cached.pods + Math.max(1, Math.ceil(cached.pods * REFRESH_GROWTH))) return cached.model;
    const shapes = snapshotShapes(snapshot, { coverage, prior, priorUntilPods });
    const model = new FragmentationModel(shapes, lookahead);
    derived.set(pods, { pods: pods.length, model });
    return model;
  };

  let weights = new Float64Array(16);

  const evaluate = (model: FragmentationModel, before: number, pod: PodRequirements, node: NodeInfo): Scored => {
    const groups = model.groupsFor(node);
    const { cpuMilli } = pod.demand;
    // In this node's device terms: a replica of a time-sliced GPU is a share of one device.
    const gpuCount = node.deviceCountOf(pod.demand);
    const gpuMilli = node.deviceMilliOf(pod.demand);
    const cpuAfter = node.allocatableCpuMilli - node.requestedCpuMilli - cpuMilli;
    if (weights.length < groups.length) weights = new Float64Array(groups.length * 2);
    const weightsAfter = model.weightsFor(groups, cpuAfter, weights);
    const devices = node.devices;
    const wholeWeight = wholeWeightOf(node);
    if (scratch.length < devices.length) scratch = new Int32Array(devices.length);
    const after = scratch.subarray(0, devices.length);
    after.set(devices);

    if (gpuCount === 1 && gpuMilli < GPU_MILLI) {
      let best: Scored = { score: 0, device: -1 };
      for (let i = 0; i < devices.length; i++) {
        const free = devices[i] ?? 0;
        // Devices with the same free share give the same node state: the first one stands for all.
        if (free < gpuMilli || devices.indexOf(free) < i) continue;
        after[i] = free - gpuMilli;
        const score = toScore(before - model.fragmentWith(after, groups, weightsAfter, wholeWeight, cpuAfter));
        after[i] = free;
        if (best.device < 0 || score > best.score) best = { score, device: i };
      }
      return best;
    }
    if (gpuCount > 0) {
      const need = Math.min(gpuMilli, GPU_MILLI);
      for (let i = 0, left = gpuCount; i < after.length && left > 0; i++) {
        if ((after[i] ?? 0) >= need) {
          after[i] = (after[i] ?? 0) - need;
          left--;
        }
      }
    }
    return { score: toScore(before - model.fragmentWith(after, groups, weightsAfter, wholeWeight, cpuAfter)), device: -1 };
  };

  // The model and the pod's key, resolved once per cycle (PreScore) instead of
  // per node; checked against the pod list modelFor depends on, which only a
  // simulator bind between scoring and device choice can change.
  const resolveCycle = (state: CycleState, pod: PodRequirements): CycleModel => {
    const pods = state.snapshot.pods;
    const cached = state.read(CYCLE);
    if (cached !== undefined && cached.pod === pod && cached.pods === pods && cached.podCount === pods.length) return cached;
    const fresh: CycleModel = { pod, pods, podCount: pods.length, model: modelFor(state.snapshot), key: podKey(pod) };
    state.write(CYCLE, fresh);
    return fresh;
  };

  /** The node's memo with this cycle's shape scored last (lastScore, lastDevice). */
  const scored = (state: CycleState, pod: PodRequirements, node: NodeInfo): NodeMemo => {
    const { model, key } = resolveCycle(state, pod);
    const memo = memos.get(node);
    if (memo !== undefined && memo.model === model && memo.version === node.stateVersion) {
      if (memo.lastKey === key) return memo;
      const others = (memo.others ??= new Map());
      if (!others.has(memo.lastKey)) others.set(memo.lastKey, { score: memo.lastScore, device: memo.lastDevice });
      const { score, device } = others.get(key) ?? evaluate(model, memo.before, pod, node);
      memo.lastKey = key;
      memo.lastScore = score;
      memo.lastDevice = device;
      return memo;
    }
    const before = model.fragment(node.devices, node.allocatableCpuMilli - node.requestedCpuMilli, model.groupsFor(node), wholeWeightOf(node));
    const { score, device } = evaluate(model, before, pod, node);
    const fresh: NodeMemo = { model, version: node.stateVersion, before, lastKey: key, lastScore: score, lastDevice: device, others: undefined };
    memos.set(node, fresh);
    return fresh;
  };

  return {
    name: FRAGMENTATION_NAME,
    preScore(state: CycleState, pod: PodRequirements): void {
      resolveCycle(state, pod);
    },
    score(state: CycleState, pod: PodRequirements, node: NodeInfo): number {
      return scored(state, pod, node).lastScore;
    },
    chooseDevices(state: CycleState, pod: PodRequirements, node: NodeInfo): readonly number[] | undefined {
      if (node.deviceCountOf(pod.demand) !== 1 || node.deviceMilliOf(pod.demand) >= GPU_MILLI) return undefined;
      const device = scored(state, pod, node).lastDevice;
      return device < 0 ? undefined : [device];
    },
  };
}
