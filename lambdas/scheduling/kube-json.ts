/**
 * The few fields of Kubernetes Node and Pod JSON the library reads, as
 * structural types (V1Node / V1Pod from @kubernetes/client-node fit them).
 * Input may come straight off the wire, so readers below check shapes at run
 * time instead of trusting the types.
 */
export type KubeResourceList = Readonly<Record<string, string>>;

export interface KubeObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface KubeNode {
  readonly metadata?: KubeObjectMeta;
  readonly status?: { readonly allocatable?: KubeResourceList; readonly capacity?: KubeResourceList };
}

export interface KubeContainer {
  readonly name?: string;
  readonly restartPolicy?: string;
  readonly resources?: { readonly limits?: KubeResourceList; readonly requests?: KubeResourceList };
}

export interface KubePod {
  readonly metadata?: KubeObjectMeta;
  readonly spec?: {
    readonly nodeName?: string;
    readonly containers?: readonly KubeContainer[];
    readonly initContainers?: readonly KubeContainer[];
    readonly overhead?: KubeResourceList;
  };
  readonly status?: { readonly phase?: string };
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A map of string values; anything else (numbers, nested objects) is dropped. */
export function stringMap(value: unknown): Readonly<Record<string, string>> {
  if (!isRecord(value)) return EMPTY;
  let result: Record<string, string> | undefined;
  for (const key in value) {
    const entry = value[key];
    if (typeof entry === 'string') (result ??= {})[key] = entry;
  }
  return result ?? EMPTY;
}

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function recordList(value: unknown): readonly Readonly<Record<string, unknown>>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function metadataOf(object: unknown): Readonly<Record<string, unknown>> {
  return isRecord(object) && isRecord(object.metadata) ? object.metadata : EMPTY;
}
