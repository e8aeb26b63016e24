import type { GpuClaimLookup } from './dra-claims';
import { claimedGpuDemand } from './dra-claims';
import { modelTokens, splitModelAlternatives } from './gpu-model';
import { GPU_MILLI, MAX_GROUP_SIZE, POD_ANNOTATION } from './keys';
import type { KubePod } from './kube-json';
import { metadataOf, stringField, stringMap } from './kube-json';
import type { LabelSelector } from './label-selector';
import { parseLabelSelector } from './label-selector';
import { parseMiB } from './quantity';
import type { ResourceDemand } from './resources';
import { podDemand } from './resources';
import { parseDuration } from './duration';

/** Why a pod cannot be placed anywhere: the field and the bad value, for the rejection message. */
export interface InvalidRequirement {
  readonly field: string;
  readonly value: string;
  /** What is wrong, for the rejection's message after its phrase (reject). */
  readonly detail: string;
}

/**
 * Everything the plugins need to know about the pod being scheduled, parsed
 * once per scheduling cycle (kube-scheduler's PreFilter). Plugins never look
 * at the raw Pod.
 */
export interface PodRequirements {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly demand: ResourceDemand;
  /** Allowed GPU models as written (for messages); undefined = any model. */
  readonly gpuModels: readonly string[] | undefined;
  /** Token form of each allowed model (parallel to gpuModels). */
  readonly gpuModelTokens: readonly (readonly string[])[];
  /** Minimum memory per GPU in MiB; undefined = any. */
  readonly gpuMemoryMiB: number | undefined;
  readonly peerSelector: LabelSelector | undefined;
  /** Pods in the pod's job (gpu.nvidia.com/group-size), itself included; undefined = not declared. */
  readonly groupSize: number | undefined;
  /** How long the pod expects to run (gpu.nvidia.com/expected-runtime), ms; undefined = not declared, or not a duration (admission warns). */
  readonly expectedRuntimeMs: number | undefined;
  /** Set when the pod asks for something we cannot parse; the pod then fits nowhere. */
  readonly invalid: InvalidRequirement | undefined;
  /**
   * ResourceClaims the pod names that the snapshot does not hold yet (made
   * from a template moments before the request): they may ask for GPUs the
   * demand does not count. Unset when there are none.
   */
  readonly unseenClaims?: number;
}

/** Plain description of a pod, for callers that do not start from Kubernetes JSON. */
export interface PodSpecInput {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly cpuMilli?: number;
  readonly memoryBytes?: number;
  readonly gpuCount?: number;
  /** Share of each GPU, 1..1000 (1000 = whole GPUs). */
  readonly gpuMilli?: number;
  readonly gpuModels?: readonly string[];
  readonly gpuMemoryMiB?: number;
  readonly peerSelector?: LabelSelector;
  readonly groupSize?: number;
  readonly expectedRuntimeMs?: number;
}

export function createPodRequirements(input: PodSpecInput): PodRequirements {
  const namespace = input.namespace ?? 'default';
  const models = input.gpuModels && input.gpuModels.length > 0 ? input.gpuModels : undefined;
  return {
    uid: input.uid ?? `${namespace}/${input.name}`,
    namespace,
    name: input.name,
    labels: input.labels ?? {},
    demand: {
      cpuMilli: input.cpuMilli ?? 0,
      memoryBytes: input.memoryBytes ?? 0,
      gpuCount: input.gpuCount ?? 0,
      gpuMilli: input.gpuMilli ?? GPU_MILLI,
    },
    gpuModels: models,
    gpuModelTokens: (models ?? []).map(modelTokens),
    gpuMemoryMiB: input.gpuMemoryMiB,
    peerSelector: input.peerSelector,
    groupSize: input.groupSize,
    expectedRuntimeMs: input.expectedRuntimeMs,
    invalid: undefined,
  };
}

/**
 * Parses a Kubernetes Pod. Never throws: problems land in `invalid`. GPUs
 * the pod claims through ResourceClaims (`claimOf` finds them) add to its
 * whole-GPU demand, and their selectors' model and memory apply where the
 * pod's annotations say nothing (see dra-claims.ts).
 */
export function parsePodRequirements(pod: KubePod | unknown, claimOf?: GpuClaimLookup): PodRequirements {
  const metadata = metadataOf(pod);
  const annotations = stringMap(metadata.annotations);
  const namespace = stringField(metadata.namespace) ?? 'default';
  const name = stringField(metadata.name) ?? '';
  const requested = podDemand(pod);
  const { problem } = requested;
  const claimed = claimedGpuDemand(pod, claimOf);
  // Claimed devices are whole GPUs: they add to whole-GPU requests, never to a share of one.
  const addsClaims = claimed.count > 0 && requested.demand.gpuMilli >= GPU_MILLI && requested.demand.gpuResource === undefined;
  const demand: ResourceDemand = addsClaims ? { ...requested.demand, gpuCount: requested.demand.gpuCount + claimed.count } : requested.demand;
  let invalid: InvalidRequirement | undefined = problem && {
    field: problem.field,
    value: problem.value,
    detail: `${problem.field}=${JSON.stringify(problem.value)} is not a valid quantity`,
  };

  const modelText = annotations[POD_ANNOTATION.gpuModel];
  const models = modelText === undefined ? (addsClaims ? claimed.models : undefined) : splitModelAlternatives(modelText);
  const modelTokenLists = (models ?? []).map(modelTokens);
  if (models !== undefined && (models.length === 0 || modelTokenLists.some((tokens) => tokens.length === 0))) {
    invalid ??= badAnnotation(POD_ANNOTATION.gpuModel, modelText ?? '', 'names no model');
  }

  const memoryText = annotations[POD_ANNOTATION.gpuMemory];
  let gpuMemoryMiB: number | undefined;
  if (memoryText !== undefined) {
    const parsed = parseMiB(memoryText);
    if (parsed === undefined) invalid ??= badAnnotation(POD_ANNOTATION.gpuMemory, memoryText, 'is not MiB or a quantity such as 40Gi');
    else if (parsed < 0) invalid ??= badAnnotation(POD_ANNOTATION.gpuMemory, memoryText, 'is negative');
    else gpuMemoryMiB = parsed;
  } else if (addsClaims) {
    gpuMemoryMiB = claimed.minMemoryMiB;
  }

  const selectorText = annotations[POD_ANNOTATION.peerSelector];
  let peerSelector: LabelSelector | undefined;
  if (selectorText !== undefined) {
    const parsed = parseLabelSelector(selectorText);
    if (parsed.ok) peerSelector = parsed.selector;
    else invalid ??= badAnnotation(POD_ANNOTATION.peerSelector, selectorText, `is not a label selector: ${parsed.error}`);
  }

  const groupText = annotations[POD_ANNOTATION.groupSize];
  let groupSize: number | undefined;
  if (groupText !== undefined) {
    const parsed = parseGroupSize(groupText);
    if (typeof parsed === 'string') invalid ??= badAnnotation(POD_ANNOTATION.groupSize, groupText, parsed);
    else if (peerSelector === undefined && selectorText === undefined) {
      invalid ??= badAnnotation(POD_ANNOTATION.groupSize, groupText, `needs ${POD_ANNOTATION.peerSelector} to find the job's other pods`);
    } else groupSize = parsed;
  }

  // Unknown rather than invalid when malformed: the pod still fits everywhere
  // but on a Capacity Block in its last minutes (admission warns of the typo).
  const runtimeText = annotations[POD_ANNOTATION.expectedRuntime];
  const expectedRuntimeMs = runtimeText === undefined ? undefined : parseDuration(runtimeText);

  return {
    uid: stringField(metadata.uid) ?? `${namespace}/${name}`,
    namespace,
    name,
    labels: stringMap(metadata.labels),
    demand,
    gpuModels: models && models.length > 0 ? models : undefined,
    gpuModelTokens: modelTokenLists,
    gpuMemoryMiB,
    peerSelector,
    groupSize,
    expectedRuntimeMs,
    invalid,
    ...(claimed.unseen > 0 ? { unseenClaims: claimed.unseen } : {}),
  };
}

/** A whole number of pods 1..MAX_GROUP_SIZE, or why not. */
function parseGroupSize(text: string): number | string {
  if (!/^\s*\d+\s*$/.test(text)) return 'is not a whole number of pods';
  const value = Number(text);
  if (value < 1) return 'must be at least 1';
  if (value > MAX_GROUP_SIZE) return `is more than ${MAX_GROUP_SIZE} pods`;
  return value;
}

function badAnnotation(annotation: string, value: string, why: string): InvalidRequirement {
  return { field: annotation, value, detail: `annotation ${annotation}=${JSON.stringify(value)} ${why}` };
}
