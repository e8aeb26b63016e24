import type { DraTaintedGpu } from './dra-gpus';
import type { GpuHealthClass } from './gpu-health-reasons';
import { AGENT_CONDITION, REPAIR_CONDITIONS, agentReasonClass, draTaintClass } from './gpu-health-reasons';
import { GPU_HEALTH_DEGRADED, NODE_LABEL } from './keys';
import { isRecord, stringField } from './kube-json';

/** One node condition the health model reads (the agent's shape: type, status, reason, message). */
export interface HealthCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string | undefined;
  readonly message: string | undefined;
  /** RFC 3339, when the JSON carried it (the extender's protobuf reader leaves it out: it never reads it). */
  readonly since: string | undefined;
}

/** Why a node is degraded, with the class it is counted under. */
export interface DegradedReason {
  readonly text: string;
  readonly class: GpuHealthClass;
  /** Who said so: the reconciler's label (whose classes the reconciler knows), a node condition, or a DRA device taint. */
  readonly source: 'label' | 'condition' | 'dra';
}

/** GPUs a node has but does not hand out, and why. */
export interface UnhealthyGpus {
  readonly gpus: number;
  readonly class: GpuHealthClass;
}

/**
 * What a node's health signals say, read once when the node is mirrored:
 * - failing: AcceleratedHardwareReady=False (a fatal GPU fault): no GPU pod
 *   is placed there until it changes (node repair replaces or reboots it);
 * - networkFailing: NetworkingReady=False: no pod of a distributed job;
 * - degraded: the reconciler's `gpu.nvidia.com/health=degraded` label
 *   (warnings of the last hour), AcceleratedHardwareReady=Unknown (the agent
 *   no longer reports), a repair condition False, or a DRA device taint of
 *   effect None: pods go there only when no healthy node fits them;
 * - unhealthy: GPUs the node has but does not hand out (allocatable below
 *   the labelled count, DRA devices withheld by a NoSchedule taint).
 */
export interface NodeHealth {
  readonly failing: HealthCondition | undefined;
  readonly networkFailing: HealthCondition | undefined;
  readonly degraded: readonly DegradedReason[];
  readonly unhealthy: readonly UnhealthyGpus[];
}

/** The health of a node nothing says anything against: shared, so a healthy node costs nothing. */
export const HEALTHY: NodeHealth = Object.freeze({ failing: undefined, networkFailing: undefined, degraded: Object.freeze([]), unhealthy: Object.freeze([]) });

/** Reasons and messages longer than this are cut in what the library writes (a condition's message aggregates every fault). */
const MAX_TEXT = 160;

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

/** `AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)`: what a rejection and a log line say of a condition. */
export function describeCondition(condition: HealthCondition): string {
  const reason = condition.reason === undefined || condition.reason === '' ? '' : `: ${condition.reason}`;
  const message = condition.message === undefined || condition.message === '' ? '' : ` (${condition.message})`;
  return clip(`${condition.type}=${condition.status}${reason}${message}`);
}

/** The conditions of `status.conditions` the model reads (the agent's), malformed entries skipped. */
export function readHealthConditions(conditions: unknown, types: readonly string[]): HealthCondition[] {
  if (!Array.isArray(conditions)) return [];
  const out: HealthCondition[] = [];
  for (const entry of conditions as unknown[]) {
    if (!isRecord(entry)) continue;
    const type = stringField(entry.type);
    const status = stringField(entry.status);
    if (type === undefined || status === undefined || !types.includes(type)) continue;
    out.push({ type, status, reason: stringField(entry.reason), message: stringField(entry.message), since: stringField(entry.lastTransitionTime) });
  }
  return out;
}

function taintText(note: DraTaintedGpu): string {
  const value = note.taint.value === undefined || note.taint.value === '' ? '' : `=${note.taint.value}`;
  const since = note.taint.timeAdded === undefined ? '' : ` since ${note.taint.timeAdded}`;
  return `DRA device ${note.device}: ${note.taint.key}${value} (${note.taint.effect})${since}`;
}

export interface NodeHealthInputs {
  readonly labels: Readonly<Record<string, string>>;
  /** The node's `status.conditions` as JSON. */
  readonly conditions: unknown;
  /** Physical GPUs the labels name that allocatable does not hand out (device-plugin nodes). */
  readonly unallocatableGpus: number;
  /** The node's GPUs in NVIDIA's ResourceSlices, when they are what it hands out. */
  readonly draWithheld?: readonly DraTaintedGpu[];
  readonly draWarnings?: readonly DraTaintedGpu[];
}

/** Reads a node's health from its labels, conditions and GPU counts; HEALTHY when nothing says otherwise. */
export function readNodeHealth(inputs: NodeHealthInputs): NodeHealth {
  const conditions = readHealthConditions(inputs.conditions, [AGENT_CONDITION.acceleratedHardwareReady, AGENT_CONDITION.networkingReady, ...REPAIR_CONDITIONS]);
  let failing: HealthCondition | undefined;
  let networkFailing: HealthCondition | undefined;
  const degraded: DegradedReason[] = [];
  if (inputs.labels[NODE_LABEL.gpuHealth] === GPU_HEALTH_DEGRADED) degraded.push({ text: `label ${NODE_LABEL.gpuHealth}=${GPU_HEALTH_DEGRADED}`, class: 'Other', source: 'label' });
  for (const condition of conditions) {
    if (condition.type === AGENT_CONDITION.acceleratedHardwareReady) {
      if (condition.status === 'False') failing = condition;
      else if (condition.status === 'Unknown') degraded.push({ text: describeCondition(condition), class: 'NotReported', source: 'condition' });
    } else if (condition.type === AGENT_CONDITION.networkingReady) {
      if (condition.status === 'False') networkFailing = condition;
    } else if (condition.status === 'False') {
      degraded.push({ text: describeCondition(condition), class: 'NodeRepair', source: 'condition' });
    }
  }
  for (const note of inputs.draWarnings ?? []) degraded.push({ text: taintText(note), class: draTaintClass(note.taint.key), source: 'dra' });
  const unhealthy = gpusUnhealthyThreshold(inputs.unallocatableGpus, inputs.draWithheld ?? []);
  if (failing === undefined && networkFailing === undefined && degraded.length === 0 && unhealthy.length === 0) return HEALTHY;
  return { failing, networkFailing, degraded, unhealthy };
}

function gpusUnhealthyThreshold(unallocatable: number, withheld: readonly DraTaintedGpu[]): UnhealthyGpus[] {
  const byClass = new Map<GpuHealthClass, number>();
  if (unallocatable > 0) byClass.set('DeviceCount', unallocatable);
  for (const note of withheld) {
    const cls = draTaintClass(note.taint.key);
    byClass.set(cls, (byClass.get(cls) ?? 0) + 1);
  }
  return [...byClass].map(([cls, gpus]) => ({ gpus, class: cls }));
}

/** The class a failing node's GPUs are counted under: its condition's reason's. */
export function failingClass(condition: HealthCondition): GpuHealthClass {
  return agentReasonClass(condition.reason ?? '');
}

/** Whether a pod of this kind should avoid the node (it still fits there): degraded, or networking down for a pod that is not part of a distributed job. */
export function isDegradedFor(health: NodeHealth, distributed: boolean): boolean {
  return health.degraded.length > 0 || (!distributed && health.networkFailing !== undefined);
}
