import { canonicalModel } from './gpu-model';
import { GPU_NODE_LIMITS } from './gpu-node-limits';
import { NVIDIA_DRA_DRIVER } from './keys';
import { isRecord, metadataOf, recordList, stringField, stringMap } from './kube-json';
import { parseBytes } from './quantity';

/**
 * GPUs asked for and held through ResourceClaims (resource.k8s.io/v1): the
 * part of a claim the extender reads. kube-scheduler's DynamicResources
 * plugin allocates claims and evaluates their CEL selectors exactly; the
 * extender reads them only to know how many GPUs a pod wants, of which model
 * and memory where a selector says so in a common form, and which GPUs of a
 * node are already taken. What it cannot read it leaves to kube-scheduler:
 * it never rejects a node kube-scheduler's own DRA filter would accept
 * because of a selector it could not read.
 */

/** The DeviceClass of NVIDIA's full GPUs, as the driver's Helm chart names it: requests of this class are GPUs. */
export const NVIDIA_GPU_DEVICE_CLASS = NVIDIA_DRA_DRIVER;

/**
 * The annotation kube-scheduler puts on the claim it makes for a pod's plain
 * `nvidia.com/gpu` request served by DRA (KEP-5004). Those devices are
 * counted from the pod's request like device-plugin GPUs, so the claim is not
 * counted again.
 */
export const EXTENDED_RESOURCE_CLAIM_ANNOTATION = 'resource.kubernetes.io/extended-resource-claim';

/** One request of a claim for NVIDIA GPUs, as far as its selectors could be read. */
export interface GpuClaimRequest {
  /** Devices asked for; allocationMode `All` counts as 1 (the node's count is not known here). */
  readonly count: number;
  /** Models (canonical, e.g. `H100`) a selector allows by productName; undefined = any or not read. */
  readonly models: readonly string[] | undefined;
  /** Least memory per GPU a selector asks, in MiB; undefined = any or not read. */
  readonly minMemoryMiB: number | undefined;
}

/** A device allocated to a claim: the pool (NVIDIA's driver names it after the node) and the device's name. */
export interface AllocatedDevice {
  readonly pool: string;
  readonly device: string;
}

/** A ResourceClaim reduced to its NVIDIA GPUs. */
export interface GpuClaim {
  /** `namespace/name`, the key pods reference it by. */
  readonly key: string;
  /** Requests of NVIDIA's GPU class (`exactly`, or a `firstAvailable` list read as its loosest alternative). */
  readonly requests: readonly GpuClaimRequest[];
  /** Devices of NVIDIA's driver in the claim's allocation; empty while unallocated. */
  readonly allocated: readonly AllocatedDevice[];
  /** True once kube-scheduler allocated the claim (whatever driver): it then holds its devices already. */
  readonly isAllocated: boolean;
  /** The claim kube-scheduler made for a KEP-5004 request (counted from the pod's request instead). */
  readonly extendedResource: boolean;
}

/** Claims by `namespace/name`. */
export type GpuClaimLookup = (key: string) => GpuClaim | undefined;

/** A claim has at most 32 requests and a request at most 8 alternatives (resource.k8s.io/v1 limits); more is not a real claim. */
const MAX_REQUESTS = 32;
/** The API allows up to 32 selectors per request; longer expressions than this are not read. */
const MAX_EXPRESSION_LENGTH = 10_000;

/**
 * A ResourceClaim (JSON) reduced to its NVIDIA GPUs (none, for a claim of
 * other devices); undefined when it has no name.
 */
export function gpuClaimFromKubernetes(claim: unknown): GpuClaim | undefined {
  if (!isRecord(claim)) return undefined;
  const metadata = metadataOf(claim);
  const name = stringField(metadata.name);
  if (name === undefined || name === '') return undefined;
  const namespace = stringField(metadata.namespace) ?? 'default';
  const spec = isRecord(claim.spec) ? claim.spec : undefined;
  const devices = isRecord(spec?.devices) ? spec.devices : undefined;
  const requests: GpuClaimRequest[] = [];
  for (const request of recordList(devices?.requests).slice(0, MAX_REQUESTS)) {
    const read = readRequest(request);
    if (read !== undefined) requests.push(read);
  }
  const status = isRecord(claim.status) ? claim.status : undefined;
  const allocation = isRecord(status?.allocation) ? status.allocation : undefined;
  const results = isRecord(allocation?.devices) ? recordList(allocation.devices.results) : [];
  const allocated: AllocatedDevice[] = [];
  for (const result of results.slice(0, GPU_NODE_LIMITS.devices)) {
    if (stringField(result.driver) !== NVIDIA_DRA_DRIVER) continue;
    const pool = stringField(result.pool);
    const device = stringField(result.device);
    if (pool !== undefined && device !== undefined) allocated.push({ pool, device });
  }
  // A claim for other devices is kept too, as a claim without GPUs: so a
  // pod's claim the extender has not seen yet is told apart from one that
  // asks for no GPU.
  return {
    key: `${namespace}/${name}`,
    requests,
    allocated,
    isAllocated: allocation !== undefined,
    extendedResource: stringMap(metadata.annotations)[EXTENDED_RESOURCE_CLAIM_ANNOTATION] === 'true',
  };
}

/** One request: `exactly` of NVIDIA's GPU class, or the loosest reading of a `firstAvailable` list that names it. */
function readRequest(request: Readonly<Record<string, unknown>>): GpuClaimRequest | undefined {
  if (isRecord(request.exactly)) return readDeviceRequest(request.exactly);
  const alternatives = recordList(request.firstAvailable).map(readDeviceRequest);
  if (alternatives.length === 0 || alternatives.some((a) => a === undefined)) {
    // An alternative of another class could be the one allocated: no GPU can be counted on.
    return undefined;
  }
  const gpus = alternatives as GpuClaimRequest[];
  // kube-scheduler takes the first alternative that fits: any may be the one, so the extender asks only what all have in common.
  const models = gpus.every((a) => a.models !== undefined) ? [...new Set(gpus.flatMap((a) => a.models ?? []))] : undefined;
  const memories = gpus.map((a) => a.minMemoryMiB);
  return {
    count: Math.min(...gpus.map((a) => a.count)),
    models,
    minMemoryMiB: memories.every((m) => m !== undefined) ? Math.min(...(memories as number[])) : undefined,
  };
}

function readDeviceRequest(request: Readonly<Record<string, unknown>>): GpuClaimRequest | undefined {
  if (stringField(request.deviceClassName) !== NVIDIA_GPU_DEVICE_CLASS) return undefined;
  const mode = stringField(request.allocationMode) ?? 'ExactCount';
  const count = mode === 'ExactCount' ? (request.count ?? 1) : 1;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > GPU_NODE_LIMITS.physicalGpus) return undefined;
  let models: string[] | undefined;
  let minMemoryMiB: number | undefined;
  for (const selector of recordList(request.selectors)) {
    const expression = isRecord(selector.cel) ? stringField(selector.cel.expression) : undefined;
    if (expression === undefined || expression.length > MAX_EXPRESSION_LENGTH) continue;
    const read = readSelector(expression);
    if (read.models !== undefined) models = models === undefined ? read.models : models.filter((m) => read.models?.includes(m));
    if (read.minMemoryMiB !== undefined) minMemoryMiB = Math.max(minMemoryMiB ?? 0, read.minMemoryMiB);
  }
  return { count, models, minMemoryMiB };
}

const Q = `(['"])`;
/** `device.attributes["gpu.nvidia.com"].productName` or `…["productName"]`. */
const PRODUCT = `device\\.attributes\\[\\s*${Q}gpu\\.nvidia\\.com\\1\\s*\\](?:\\.productName|\\[\\s*${Q}productName\\2\\s*\\])`;
const PRODUCT_EQUALS = new RegExp(`^\\(?\\s*${PRODUCT}\\s*==\\s*${Q}([^'"]*)\\3\\s*\\)?$`);
const PRODUCT_IN = new RegExp(`^\\(?\\s*${PRODUCT}\\s+in\\s*\\[([^\\]]*)\\]\\s*\\)?$`);
/** `device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0` (or `> 0`), or `.isGreaterThan(quantity(…))`. */
const MEMORY = `device\\.capacity\\[\\s*${Q}gpu\\.nvidia\\.com\\1\\s*\\](?:\\.memory|\\[\\s*${Q}memory\\2\\s*\\])`;
const MEMORY_AT_LEAST = new RegExp(
  `^\\(?\\s*${MEMORY}\\s*\\.\\s*(?:compareTo\\(\\s*quantity\\(\\s*${Q}([^'"]+)\\3\\s*\\)\\s*\\)\\s*>=?\\s*0|isGreaterThan\\(\\s*quantity\\(\\s*${Q}([^'"]+)\\5\\s*\\)\\s*\\))\\s*\\)?$`,
);

/**
 * What a CEL selector says of model and memory, read only from conjunctions
 * of the forms above (NVIDIA's documented examples). An expression with `||`
 * or `!` is not read at all: a part of it is then no requirement.
 */
export function readSelector(expression: string): { models: string[] | undefined; minMemoryMiB: number | undefined } {
  let models: string[] | undefined;
  let minMemoryMiB: number | undefined;
  if (expression.includes('||') || /!(?!=)/.test(expression)) return { models, minMemoryMiB };
  for (const part of expression.split('&&').map((p) => p.trim())) {
    const equals = PRODUCT_EQUALS.exec(part);
    const inList = PRODUCT_IN.exec(part);
    const named = equals ? [equals[4] ?? ''] : inList ? [...(inList[3] ?? '').matchAll(/(['"])([^'"]*)\1/g)].map((m) => m[2] ?? '') : undefined;
    if (named !== undefined) {
      // By model, as the labels are compared: a selector's exact product name is kube-scheduler's to check.
      const alternatives = [...new Set(named.map(canonicalModel).filter((m) => m !== ''))];
      models = models === undefined ? alternatives : models.filter((m) => alternatives.includes(m));
      continue;
    }
    const memory = MEMORY_AT_LEAST.exec(part);
    const quantity = memory?.[4] ?? memory?.[6];
    const bytes = quantity === undefined ? undefined : parseBytes(quantity);
    if (bytes !== undefined && bytes >= 0) minMemoryMiB = Math.max(minMemoryMiB ?? 0, Math.ceil(bytes / 2 ** 20));
  }
  return { models, minMemoryMiB };
}

/** The GPU claims a pod references, in its namespace: by name, or, for a template, by the name its status gives the made claim. */
export function podGpuClaimKeys(pod: unknown): string[] {
  if (!isRecord(pod)) return [];
  const namespace = stringField(metadataOf(pod).namespace) ?? 'default';
  const spec = isRecord(pod.spec) ? pod.spec : undefined;
  const status = isRecord(pod.status) ? pod.status : undefined;
  const made = new Map<string, string>();
  for (const entry of recordList(status?.resourceClaimStatuses)) {
    const name = stringField(entry.name);
    const claim = stringField(entry.resourceClaimName);
    if (name !== undefined && claim !== undefined) made.set(name, claim);
  }
  const keys: string[] = [];
  for (const entry of recordList(spec?.resourceClaims).slice(0, MAX_REQUESTS)) {
    const name = stringField(entry.name);
    const claim = stringField(entry.resourceClaimName) ?? (name === undefined ? undefined : made.get(name));
    if (claim !== undefined && claim !== '') keys.push(`${namespace}/${claim}`);
  }
  return keys;
}

/** What a pending pod's claims ask of GPUs, as the extender reads them. */
export interface ClaimedGpuDemand {
  /** GPUs still to allocate: requests of claims not yet allocated. */
  readonly count: number;
  readonly models: readonly string[] | undefined;
  readonly minMemoryMiB: number | undefined;
  /** Claims the pod references that the extender has not seen (its cache may lag a new claim by a refresh). */
  readonly unseen: number;
}

const NO_CLAIMS: ClaimedGpuDemand = { count: 0, models: undefined, minMemoryMiB: undefined, unseen: 0 };

/**
 * The GPUs a pod's claims still need. An allocated claim (shared with a pod
 * already placed) holds its devices already and adds none; kube-scheduler
 * then keeps the pod on that node. A claim not seen adds nothing: it may be
 * for another kind of device, and kube-scheduler waits for it anyway.
 */
export function claimedGpuDemand(pod: unknown, claimOf: GpuClaimLookup | undefined): ClaimedGpuDemand {
  const keys = podGpuClaimKeys(pod);
  if (keys.length === 0) return NO_CLAIMS;
  const requests: GpuClaimRequest[] = [];
  let unseen = 0;
  for (const key of keys) {
    const claim = claimOf?.(key);
    if (claim === undefined) unseen++;
    else if (!claim.isAllocated && !claim.extendedResource) requests.push(...claim.requests);
  }
  // The library gives a pod one model set and one memory for all its GPUs:
  // what any of its requests allows (a node has one model; kube-scheduler
  // checks each request exactly), so nothing kube-scheduler accepts is lost.
  const models = requests.every((r) => r.models !== undefined) ? [...new Set(requests.flatMap((r) => r.models ?? []))] : undefined;
  const memories = requests.map((r) => r.minMemoryMiB);
  return {
    count: Math.min(
      requests.reduce((sum, r) => sum + r.count, 0),
      GPU_NODE_LIMITS.physicalGpus,
    ),
    models: requests.length === 0 ? undefined : models,
    minMemoryMiB: requests.length > 0 && memories.every((m) => m !== undefined) ? Math.min(...(memories as number[])) : undefined,
    unseen,
  };
}
