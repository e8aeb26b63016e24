// Resource requests and allocatable as kube-scheduler's NodeResourcesFit
// counts them: every resource by name, CPU in millicores, byte resources in
// bytes, the rest (nvidia.com/gpu, pods) as plain quantities.
import { isRecord, recordList } from '../../lambdas/scheduling/kube-json';
import { parseBytes, parseCpuMilli, parseQuantity } from '../../lambdas/scheduling/quantity';

export type ResourceList = ReadonlyMap<string, number>;

const BYTE_RESOURCES = /^(memory|ephemeral-storage|hugepages-.*)$/;

function quantityOf(name: string, text: string): number | undefined {
  if (name === 'cpu') return parseCpuMilli(text);
  if (BYTE_RESOURCES.test(name)) return parseBytes(text);
  const value = parseQuantity(text);
  // Go's Quantity.Value() rounds up to a whole number.
  return value === undefined ? undefined : Math.ceil(value);
}

/** A resource list (requests, allocatable); quantities that do not parse are left out. */
export function resourceListOf(raw: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (!isRecord(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
    const quantity = text === undefined ? undefined : quantityOf(name, text);
    if (quantity !== undefined) out.set(name, quantity);
  }
  return out;
}

function addInto(target: Map<string, number>, add: ResourceList): void {
  for (const [name, value] of add) target.set(name, (target.get(name) ?? 0) + value);
}

function maxInto(target: Map<string, number>, other: ResourceList): void {
  for (const [name, value] of other) if (value > (target.get(name) ?? 0)) target.set(name, value);
}

/** A container's requests; a resource with only a limit requests its limit, as the API server defaults it. */
function requestsOf(container: Readonly<Record<string, unknown>>): Map<string, number> {
  const resources = isRecord(container.resources) ? container.resources : {};
  const requests = resourceListOf(resources.limits);
  for (const [name, value] of resourceListOf(resources.requests)) requests.set(name, value);
  return requests;
}

/**
 * What the pod requests (k8s.io/component-helpers PodRequests): the sum of
 * its containers and sidecars (init containers that restart always), or an
 * init container's need while it runs if larger, plus the pod overhead;
 * pod-level requests replace the containers' for the resources they name.
 */
export function podRequests(spec: Readonly<Record<string, unknown>>): Map<string, number> {
  const requests = new Map<string, number>();
  for (const container of recordList(spec.containers)) addInto(requests, requestsOf(container));
  const sidecars = new Map<string, number>();
  const initPeak = new Map<string, number>();
  for (const container of recordList(spec.initContainers)) {
    const own = requestsOf(container);
    if (container.restartPolicy === 'Always') {
      addInto(requests, own);
      addInto(sidecars, own);
      continue;
    }
    const whileRunning = new Map(sidecars);
    addInto(whileRunning, own);
    maxInto(initPeak, whileRunning);
  }
  maxInto(requests, initPeak);
  const podLevel = resourceListOf(isRecord(spec.resources) ? spec.resources.requests : undefined);
  for (const [name, value] of podLevel) if (name === 'cpu' || name === 'memory') requests.set(name, value);
  addInto(requests, resourceListOf(spec.overhead));
  return requests;
}
