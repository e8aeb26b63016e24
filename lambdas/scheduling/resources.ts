import { GPU_MILLI, GPU_RESOURCE, MIG_RESOURCE_PREFIX, SHARED_GPU_RESOURCE } from './keys';
import type { KubePod } from './kube-json';
import { isRecord } from './kube-json';
import { parseBytes, parseCount, parseCpuMilli } from './quantity';

/** What a pod consumes on a node. GPUs are `gpuCount` devices with `gpuMilli` of each (1000 = whole). */
export interface ResourceDemand {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpuCount: number;
  readonly gpuMilli: number;
  /**
   * The device resource the GPUs are asked as: nvidia.com/gpu (the default),
   * nvidia.com/gpu.shared (renamed time-slicing/MPS replicas) or a MIG
   * resource nvidia.com/mig-<profile>. What a unit is worth depends on the node.
   */
  readonly gpuResource?: string;
}

export const NO_DEMAND: ResourceDemand = Object.freeze({ cpuMilli: 0, memoryBytes: 0, gpuCount: 0, gpuMilli: GPU_MILLI });

/** A container resource (or a pod-level or overhead one) that could not be parsed: the field and its value. */
export interface ResourceProblem {
  readonly field: string;
  readonly value: string;
}

export interface DemandParse {
  readonly demand: ResourceDemand;
  /** Set when a container resource could not be parsed: the field and its value. */
  readonly problem?: ResourceProblem;
}

/** Every resource a pod requests by name, in the unit of resourceQuantity. */
export interface PodRequestsParse {
  readonly requests: ReadonlyMap<string, number>;
  /** Set when a value could not be parsed (it counts 0): the first one, named by its field. */
  readonly problem?: ResourceProblem;
}

/** Resources counted in bytes; any other but cpu is a count. */
const BYTE_RESOURCES = /^(memory|ephemeral-storage|hugepages-.*)$/;

/**
 * A resource's quantity in the unit kube-scheduler compares it in: cpu in
 * millicores, memory, ephemeral-storage and hugepages in bytes (each rounded
 * up), anything else (pods, nvidia.com/gpu, other extended resources) a
 * whole number, as the API server's validation requires of them. Undefined
 * for a text that is no such quantity, or a negative one.
 */
export function resourceQuantity(name: string, text: string): number | undefined {
  const value = name === 'cpu' ? parseCpuMilli(text) : BYTE_RESOURCES.test(name) ? parseBytes(text) : parseCount(text);
  return value === undefined || value < 0 ? undefined : value;
}

/** A resource list as kube-scheduler reads one (a node's allocatable): every quantity that parses, by name; the others are left out. */
export function resourceListOf(raw: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (!isRecord(raw)) return out;
  for (const name in raw) {
    const text = quantityText(raw, name);
    const quantity = text === undefined ? undefined : resourceQuantity(name, text);
    if (quantity !== undefined) out.set(name, quantity);
  }
  return out;
}

/**
 * The pod's effective request of every resource it names (`only`: of those
 * alone, in that order), as kube-scheduler's NodeResourcesFit computes it
 * (`computePodResourceRequest` → `PodRequests` → `AggregateContainerRequests`
 * in k8s.io/component-helpers/resource/helpers.go, sidecar KEP-753 formula):
 *
 *   per resource, max( Σ app containers + Σ restartable init containers,
 *                      max over regular init containers i of
 *                        (request of i + Σ restartable init containers declared before i) )
 *   then pod-level requests replace cpu, memory and hugepages where set, then + spec.overhead.
 *
 * A sidecar keeps running while later init containers run, so it is added to
 * each of them; one declared after an init container is not yet running then.
 *
 * The scheduler itself reads only `requests`: the API server's pod defaulting
 * (SetDefaults_Pod in pkg/apis/core/v1/defaults.go) has already copied each
 * limit into a missing request, key by key. Pods that never passed the API
 * server (simulator input, tests) get the same defaulting here, so a
 * limits-only `nvidia.com/gpu` counts.
 *
 * Pod-level resources (`spec.resources`, PodLevelResources: beta and on by
 * default since 1.34, so on in 1.35 and 1.36): the scheduler calls PodRequests with
 * SkipPodLevelResources = !gate, and a pod-level request for a supported
 * resource (IsSupportedPodLevelResource: cpu, memory, hugepages-*; never
 * extended resources such as GPUs) replaces the containers' aggregate for
 * that resource, before overhead is added. With the gate off the API server
 * drops `spec.resources` on create (dropDisabledPodLevelResources in
 * pkg/api/pod/util.go), so reading it whenever present matches either way.
 * A pod-level limit without a request is defaulted as the API server does
 * (defaultPodRequests): for cpu and memory to the containers' aggregate if
 * any container names the resource, else to the limit; for hugepages, which
 * cannot be overcommitted, to the limit.
 *
 * Not modelled, since a pending pod's spec is what the scheduler uses for it:
 * in-place resize status (UseStatusResources, used only for bound pods) and
 * DRA node-allocatable claim status. Each value is rounded up to whole
 * millicores / bytes before summing, where the scheduler sums exact
 * quantities and rounds once: the two differ only for sub-millicore or
 * fractional-byte values. A value that does not parse counts 0 and is
 * reported (the first one) as `problem`.
 */
export function podRequests(pod: KubePod | unknown, only?: readonly string[]): PodRequestsParse {
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const names = only ?? resourceNames(spec);
  const problem: Problem = {};
  const totals = aggregateRequests(spec, names, problem);
  const requests = new Map<string, number>();
  for (let i = 0; i < names.length; i++) requests.set(names[i] as string, totals[i] as number);
  return problem.value === undefined ? { requests } : { requests, problem: problemOf(problem) };
}

/**
 * The pod's demand as the scheduling library counts it: cpu, memory and the
 * GPU resource it asks for, by podRequests' formula. GPUs never take a
 * pod-level value (an extended resource is no pod-level resource).
 */
export function podDemand(pod: KubePod | unknown): DemandParse {
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const gpuResource = podGpuResource(spec);
  const problem: Problem = {};
  const [cpuMilli = 0, memoryBytes = 0, gpuCount = 0] = aggregateRequests(spec, ['cpu', 'memory', gpuResource], problem);
  const demand: ResourceDemand = {
    cpuMilli,
    memoryBytes,
    gpuCount,
    gpuMilli: GPU_MILLI,
    ...(gpuResource === GPU_RESOURCE ? {} : { gpuResource }),
  };
  return problem.value === undefined ? { demand } : { demand, problem: problemOf(problem) };
}

/** The first unparseable value; the field name is built only when there is one (not once per container). */
interface Problem {
  owner?: Owner;
  resource?: string;
  value?: string;
}

/** A container (named in the message by its name) or a fixed label such as `overhead`. */
type Owner = Readonly<Record<string, unknown>> | string;

function problemOf(problem: Problem): ResourceProblem {
  return { field: `${ownerLabel(problem.owner ?? '?')} resources ${problem.resource ?? '?'}`, value: problem.value ?? '' };
}

function ownerLabel(owner: Owner): string {
  if (typeof owner === 'string') return owner;
  return `container ${typeof owner.name === 'string' ? owner.name : '?'}`;
}

/** IsSupportedPodLevelResource (k8s.io/component-helpers/resource). */
function isPodLevelResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');
}

/**
 * The formula of podRequests over `names`, one total per name in that order.
 * Arrays indexed like `names` rather than maps: the extender runs this for
 * every bound pod of a cold listing, on three names.
 */
function aggregateRequests(spec: Readonly<Record<string, unknown>> | undefined, names: readonly string[], problem: Problem): number[] {
  const count = names.length;
  const sum = new Array<number>(count).fill(0);
  const sidecars = new Array<number>(count).fill(0);
  const initPeak = new Array<number>(count).fill(0);
  const own = new Array<number>(count).fill(0);
  // Whether any container names each resource: decides how a pod-level limit defaults.
  const named = new Array<boolean>(count).fill(false);

  const containers = spec?.containers;
  if (Array.isArray(containers)) {
    for (const container of containers as readonly unknown[]) {
      if (!isRecord(container)) continue;
      containerRequests(container, names, own, named, problem);
      for (let i = 0; i < count; i++) sum[i]! += own[i]!;
    }
  }
  const initContainers = spec?.initContainers;
  if (Array.isArray(initContainers)) {
    for (const container of initContainers as readonly unknown[]) {
      if (!isRecord(container)) continue;
      containerRequests(container, names, own, named, problem);
      if (container.restartPolicy === 'Always') {
        for (let i = 0; i < count; i++) {
          sum[i]! += own[i]!;
          sidecars[i]! += own[i]!;
        }
      } else {
        for (let i = 0; i < count; i++) initPeak[i] = Math.max(initPeak[i]!, own[i]! + sidecars[i]!);
      }
    }
  }

  const totals = sum;
  for (let i = 0; i < count; i++) totals[i] = Math.max(sum[i]!, initPeak[i]!);
  const podResources = isRecord(spec?.resources) ? spec.resources : undefined;
  if (podResources !== undefined) {
    for (let i = 0; i < count; i++) {
      const name = names[i] as string;
      if (isPodLevelResource(name)) totals[i] = podLevel(podResources.requests, podResources.limits, name, named[i]!, totals[i]!, problem);
    }
  }
  const overhead = spec?.overhead;
  if (isRecord(overhead)) {
    for (let i = 0; i < count; i++) totals[i]! += readResource(overhead, undefined, names[i] as string, problem, 'overhead');
  }
  return totals;
}

/** Fills `into` with the container's request of each name (limit where no request), and marks in `named` the ones it names. */
function containerRequests(container: Readonly<Record<string, unknown>>, names: readonly string[], into: number[], named: boolean[], problem: Problem): void {
  const resources = isRecord(container.resources) ? container.resources : undefined;
  const requests = resources?.requests;
  const limits = resources?.limits;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    into[i] = readResource(requests, limits, name, problem, container);
    if (!named[i] && (quantityText(requests, name) !== undefined || quantityText(limits, name) !== undefined)) named[i] = true;
  }
}

/**
 * The pod-level request for one resource, else the containers' `aggregate`.
 * A pod-level limit alone stands for the request the API server would have
 * defaulted from it: for cpu and memory only when no container names the
 * resource, for hugepages always.
 */
function podLevel(requests: unknown, limits: unknown, name: string, containersName: boolean, aggregate: number, problem: Problem): number {
  if (quantityText(requests, name) !== undefined) return readResource(requests, undefined, name, problem, 'pod');
  if ((!containersName || name.startsWith('hugepages-')) && quantityText(limits, name) !== undefined) return readResource(limits, undefined, name, problem, 'pod');
  return aggregate;
}

/** Every resource the pod names: in its containers, its overhead, or at pod level for a pod-level resource. */
function resourceNames(spec: Readonly<Record<string, unknown>> | undefined): string[] {
  const names = new Set<string>();
  const addKeys = (list: unknown, accept: (name: string) => boolean = () => true): void => {
    if (!isRecord(list)) return;
    for (const name in list) if (accept(name)) names.add(name);
  };
  for (const key of ['containers', 'initContainers'] as const) {
    const list = spec?.[key];
    if (!Array.isArray(list)) continue;
    for (const container of list as readonly unknown[]) {
      if (!isRecord(container) || !isRecord(container.resources)) continue;
      addKeys(container.resources.requests);
      addKeys(container.resources.limits);
    }
  }
  addKeys(spec?.overhead);
  if (isRecord(spec?.resources)) {
    addKeys(spec.resources.requests, isPodLevelResource);
    addKeys(spec.resources.limits, isPodLevelResource);
  }
  return [...names];
}

/**
 * The GPU resource the pod asks for: nvidia.com/gpu when any container names
 * it, else the renamed shared resource, else the first MIG resource. A pod
 * asks for one kind in practice; mixing kinds is modelled by the first one.
 */
function podGpuResource(spec: Readonly<Record<string, unknown>> | undefined): string {
  let found: string | undefined;
  const scan = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const container of list as readonly unknown[]) {
      if (!isRecord(container) || !isRecord(container.resources)) continue;
      for (const map of [container.resources.requests, container.resources.limits]) {
        if (!isRecord(map)) continue;
        for (const key in map) {
          if (key === GPU_RESOURCE) {
            found = GPU_RESOURCE;
            return;
          }
          if (key === SHARED_GPU_RESOURCE || key.startsWith(MIG_RESOURCE_PREFIX)) {
            if (found === undefined || (found !== SHARED_GPU_RESOURCE && key === SHARED_GPU_RESOURCE)) found = key;
          }
        }
      }
    }
  };
  scan(spec?.containers);
  if (found !== GPU_RESOURCE) scan(spec?.initContainers);
  return found ?? GPU_RESOURCE;
}

/**
 * A quantity of a resource list as text, read in place (no copy of the map
 * per container). A number is read as the quantity it spells: the API
 * server's JSON decoding of a Quantity accepts one.
 */
function quantityText(map: unknown, key: string): string | undefined {
  if (!isRecord(map)) return undefined;
  const value = map[key];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

/** The request, else the limit; 0 when absent; unparseable or negative values are recorded in `problem` and count 0. */
function readResource(requests: unknown, limits: unknown, name: string, problem: Problem, owner: Owner): number {
  const text = quantityText(requests, name) ?? quantityText(limits, name);
  if (text === undefined) return 0;
  const value = resourceQuantity(name, text);
  if (value === undefined) {
    if (problem.value === undefined) {
      problem.owner = owner;
      problem.resource = name;
      problem.value = text;
    }
    return 0;
  }
  return value;
}
