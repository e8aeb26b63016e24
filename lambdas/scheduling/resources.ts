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

export interface DemandParse {
  readonly demand: ResourceDemand;
  /** Set when a container resource could not be parsed: the field and its value. */
  readonly problem?: { readonly field: string; readonly value: string };
}

interface Totals {
  cpuMilli: number;
  memoryBytes: number;
  gpus: number;
}

/** The first unparseable value; the field name is built only when there is one (not once per container). */
interface Problem {
  owner?: Owner;
  resource?: string;
  value?: string;
}

/** A container (named in the message by its name) or a fixed label such as `overhead`. */
type Owner = Readonly<Record<string, unknown>> | string;

/**
 * The pod's effective request, as kube-scheduler's NodeResourcesFit computes
 * it (`computePodResourceRequest` → `PodRequests` → `AggregateContainerRequests`
 * in k8s.io/component-helpers/resource/helpers.go, sidecar KEP-753 formula):
 *
 *   per resource, max( Σ app containers + Σ restartable init containers,
 *                      max over regular init containers i of
 *                        (request of i + Σ restartable init containers declared before i) )
 *   then pod-level requests replace cpu/memory where set, then + spec.overhead.
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
 * resource (cpu, memory, hugepages; never extended resources such as GPUs)
 * replaces the containers' aggregate for that resource, before overhead is
 * added. With the gate off the API server drops `spec.resources` on create
 * (dropDisabledPodLevelResources in pkg/api/pod/util.go), so reading it
 * whenever present matches either way. A pod-level limit without a request is
 * defaulted as the API server does (defaultPodRequests): to the containers'
 * aggregate if any container names the resource, else to the limit.
 *
 * Not modelled, since a pending pod's spec is what the scheduler uses for it:
 * in-place resize status (UseStatusResources, used only for bound pods) and
 * DRA node-allocatable claim status. Each value is rounded up to whole
 * millicores / bytes before summing, where the scheduler sums exact
 * quantities and rounds once: the two differ only for sub-millicore or
 * fractional-byte values.
 */
export function podDemand(pod: KubePod | unknown): DemandParse {
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const problem: Problem = {};
  const sum: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  const sidecars: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  const initPeak: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  const request: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  // Whether any container names cpu / memory: decides how a pod-level limit defaults.
  let named = 0;
  const gpuResource = podGpuResource(spec);

  const containers = spec?.containers;
  if (Array.isArray(containers)) {
    for (const container of containers as readonly unknown[]) {
      if (!isRecord(container)) continue;
      named |= containerRequest(container, gpuResource, request, problem);
      add(sum, request);
    }
  }
  const initContainers = spec?.initContainers;
  if (Array.isArray(initContainers)) {
    for (const container of initContainers as readonly unknown[]) {
      if (!isRecord(container)) continue;
      named |= containerRequest(container, gpuResource, request, problem);
      if (container.restartPolicy === 'Always') {
        add(sum, request);
        add(sidecars, request);
      } else {
        initPeak.cpuMilli = Math.max(initPeak.cpuMilli, request.cpuMilli + sidecars.cpuMilli);
        initPeak.memoryBytes = Math.max(initPeak.memoryBytes, request.memoryBytes + sidecars.memoryBytes);
        initPeak.gpus = Math.max(initPeak.gpus, request.gpus + sidecars.gpus);
      }
    }
  }

  let cpuMilli = Math.max(sum.cpuMilli, initPeak.cpuMilli);
  let memoryBytes = Math.max(sum.memoryBytes, initPeak.memoryBytes);
  const podResources = isRecord(spec?.resources) ? spec.resources : undefined;
  if (podResources !== undefined) {
    const requests = podResources.requests;
    const limits = podResources.limits;
    cpuMilli = podLevel(requests, limits, 'cpu', parseCpuMilli, (named & NAMES_CPU) !== 0, cpuMilli, problem);
    memoryBytes = podLevel(requests, limits, 'memory', parseBytes, (named & NAMES_MEMORY) !== 0, memoryBytes, problem);
  }

  const overhead = spec?.overhead;
  const demand: ResourceDemand = {
    cpuMilli: cpuMilli + readResource(overhead, undefined, 'cpu', parseCpuMilli, problem, 'overhead'),
    memoryBytes: memoryBytes + readResource(overhead, undefined, 'memory', parseBytes, problem, 'overhead'),
    gpuCount: Math.max(sum.gpus, initPeak.gpus) + readResource(overhead, undefined, gpuResource, parseCount, problem, 'overhead'),
    gpuMilli: GPU_MILLI,
    ...(gpuResource === GPU_RESOURCE ? {} : { gpuResource }),
  };
  if (problem.value === undefined) return { demand };
  return { demand, problem: { field: `${ownerLabel(problem.owner ?? '?')} resources ${problem.resource ?? '?'}`, value: problem.value } };
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

const NAMES_CPU = 1;
const NAMES_MEMORY = 2;

function add(into: Totals, request: Totals): void {
  into.cpuMilli += request.cpuMilli;
  into.memoryBytes += request.memoryBytes;
  into.gpus += request.gpus;
}

/** Fills `into` with the container's request (limit where no request); returns which of cpu/memory it names. */
function containerRequest(container: Readonly<Record<string, unknown>>, gpuResource: string, into: Totals, problem: Problem): number {
  const resources = isRecord(container.resources) ? container.resources : undefined;
  const requests = resources?.requests;
  const limits = resources?.limits;
  into.cpuMilli = readResource(requests, limits, 'cpu', parseCpuMilli, problem, container);
  into.memoryBytes = readResource(requests, limits, 'memory', parseBytes, problem, container);
  into.gpus = readResource(requests, limits, gpuResource, parseCount, problem, container);
  return (
    (stringAt(requests, 'cpu') !== undefined || stringAt(limits, 'cpu') !== undefined ? NAMES_CPU : 0) |
    (stringAt(requests, 'memory') !== undefined || stringAt(limits, 'memory') !== undefined ? NAMES_MEMORY : 0)
  );
}

function ownerLabel(owner: Owner): string {
  if (typeof owner === 'string') return owner;
  return `container ${typeof owner.name === 'string' ? owner.name : '?'}`;
}

/**
 * The pod-level request for one resource, else the containers' `aggregate`.
 * A pod-level limit alone stands for the request the API server would have
 * defaulted from it, which it does only when no container names the resource.
 */
function podLevel(
  requests: unknown,
  limits: unknown,
  resource: string,
  parse: (text: string) => number | undefined,
  containersName: boolean,
  aggregate: number,
  problem: Problem,
): number {
  if (stringAt(requests, resource) !== undefined) return readResource(requests, undefined, resource, parse, problem, 'pod');
  if (!containersName && stringAt(limits, resource) !== undefined) return readResource(limits, undefined, resource, parse, problem, 'pod');
  return aggregate;
}

/** A string value of a resource map, read in place (no copy of the map per container). */
function stringAt(map: unknown, key: string): string | undefined {
  if (!isRecord(map)) return undefined;
  const value = map[key];
  return typeof value === 'string' ? value : undefined;
}

/** The request, else the limit; 0 when absent; unparseable or negative values are recorded in `problem` and count 0. */
function readResource(
  requests: unknown,
  limits: unknown,
  resource: string,
  parse: (text: string) => number | undefined,
  problem: Problem,
  owner: Owner,
): number {
  const text = stringAt(requests, resource) ?? stringAt(limits, resource);
  if (text === undefined) return 0;
  const value = parse(text);
  if (value === undefined || value < 0) {
    if (problem.value === undefined) {
      problem.owner = owner;
      problem.resource = resource;
      problem.value = text;
    }
    return 0;
  }
  return value;
}
