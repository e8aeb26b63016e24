import { GPU_MILLI, GPU_RESOURCE } from './keys';
import type { KubePod } from './kube-json';
import { isRecord, recordList, stringMap } from './kube-json';
import { parseBytes, parseCount, parseCpuMilli } from './quantity';

/** What a pod consumes on a node. GPUs are `gpuCount` devices with `gpuMilli` of each (1000 = whole). */
export interface ResourceDemand {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpuCount: number;
  readonly gpuMilli: number;
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

/**
 * The pod's effective request, as kube-scheduler computes it: the sum over
 * app containers (plus restartable init "sidecar" containers), or the largest
 * init container if bigger, plus pod overhead. A container's request defaults
 * to its limit when only the limit is set (always the case for extended
 * resources such as nvidia.com/gpu).
 */
export function podDemand(pod: KubePod | unknown): DemandParse {
  const spec = isRecord(pod) && isRecord(pod.spec) ? pod.spec : undefined;
  const problem: { field?: string; value?: string } = {};
  const sum: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  const initMax: Totals = { cpuMilli: 0, memoryBytes: 0, gpus: 0 };
  for (const container of recordList(spec?.containers)) add(sum, containerRequest(container, problem));
  for (const container of recordList(spec?.initContainers)) {
    const request = containerRequest(container, problem);
    if (container.restartPolicy === 'Always') add(sum, request);
    else {
      initMax.cpuMilli = Math.max(initMax.cpuMilli, request.cpuMilli);
      initMax.memoryBytes = Math.max(initMax.memoryBytes, request.memoryBytes);
      initMax.gpus = Math.max(initMax.gpus, request.gpus);
    }
  }
  const overhead = readResources(stringMap(spec?.overhead), undefined, problem, 'overhead');
  const demand: ResourceDemand = {
    cpuMilli: Math.max(sum.cpuMilli, initMax.cpuMilli) + overhead.cpuMilli,
    memoryBytes: Math.max(sum.memoryBytes, initMax.memoryBytes) + overhead.memoryBytes,
    gpuCount: Math.max(sum.gpus, initMax.gpus),
    gpuMilli: GPU_MILLI,
  };
  return problem.field === undefined ? { demand } : { demand, problem: { field: problem.field, value: problem.value ?? '' } };
}

function add(into: Totals, request: Totals): void {
  into.cpuMilli += request.cpuMilli;
  into.memoryBytes += request.memoryBytes;
  into.gpus += request.gpus;
}

function containerRequest(container: Readonly<Record<string, unknown>>, problem: { field?: string; value?: string }): Totals {
  const resources = isRecord(container.resources) ? container.resources : undefined;
  const name = typeof container.name === 'string' ? container.name : '?';
  return readResources(stringMap(resources?.requests), stringMap(resources?.limits), problem, `container ${name}`);
}

function readResources(
  requests: Readonly<Record<string, string>>,
  limits: Readonly<Record<string, string>> | undefined,
  problem: { field?: string; value?: string },
  where: string,
): Totals {
  return {
    cpuMilli: readResource(requests, limits, 'cpu', parseCpuMilli, problem, where),
    memoryBytes: readResource(requests, limits, 'memory', parseBytes, problem, where),
    gpus: readResource(requests, limits, GPU_RESOURCE, parseCount, problem, where),
  };
}

/** The request, else the limit; 0 when absent; unparseable or negative values are recorded in `problem` and count 0. */
function readResource(
  requests: Readonly<Record<string, string>>,
  limits: Readonly<Record<string, string>> | undefined,
  resource: string,
  parse: (text: string) => number | undefined,
  problem: { field?: string; value?: string },
  where: string,
): number {
  const text = requests[resource] ?? limits?.[resource];
  if (text === undefined) return 0;
  const value = parse(text);
  if (value === undefined || value < 0) {
    problem.field ??= `${where} resources ${resource}`;
    problem.value ??= text;
    return 0;
  }
  return value;
}
