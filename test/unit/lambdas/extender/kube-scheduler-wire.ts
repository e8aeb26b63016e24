/**
 * Reads the text the extender sends the way kube-scheduler does
 * (pkg/scheduler/extender.go, HTTPExtender.send/Filter/Prioritize/
 * ProcessPreemption, decoding into k8s.io/kube-scheduler/extender/v1), so
 * tests check what the scheduler receives, not only the reply objects:
 *
 * - any status but 200 is the error `failed <verb> with extender at URL
 *   <url>, code <status>`, and the body is not read;
 * - a 200 is decoded into the Go structs: a value of the wrong JSON type for
 *   its field fails the decoding, an int64 must be an integer literal;
 * - a filter result with Error set, or naming a node it was not asked about,
 *   is an error.
 *
 * Stricter than Go in one way: the top-level keys must be the structs' own
 * PascalCase names (Go would match "nodeNames" too, other clients may not).
 */
import { toAlbResult } from '../../../../lambdas/extender/extender-handler';
import type { RouterResponse } from '../../../../lambdas/extender/router';

/** The extender's URL as kube-scheduler's configuration names it (urlPrefix); it appears in the scheduler's errors. */
export const EXTENDER_URL = 'http://extender.internal';

/** What went over the wire: the ALB result the Lambda returns. */
export interface WireReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | number | boolean>>;
  readonly text: string;
}

export function wireReply(response: RouterResponse): WireReply {
  const result = toAlbResult(response);
  return { status: result.statusCode, headers: result.headers ?? {}, text: result.body ?? '' };
}

export interface FilterResultView {
  readonly Nodes: { readonly items: unknown[] } | null;
  readonly NodeNames: string[] | null;
  /** Go's map[string]string, as a Map: a node named "__proto__" is a key like any other. */
  readonly FailedNodes: Map<string, string>;
  readonly FailedAndUnresolvableNodes: Map<string, string>;
  readonly Error: string;
}

export interface HostPriorityView {
  readonly Host: string;
  readonly Score: number;
}

export interface MetaVictimsView {
  readonly Pods: { readonly UID: string }[];
  readonly NumPDBViolations: number;
}

/** kube-scheduler's error for the call, or what it decoded from the reply. */
export type SchedulerReading<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** HTTPExtender.send: the status line first, the body only on 200. */
function sent<T>(verb: string, reply: WireReply, decode: (text: string) => T): SchedulerReading<T> {
  if (reply.status !== 200) return { ok: false, error: `failed ${verb} with extender at URL ${EXTENDER_URL}/${verb}, code ${reply.status}` };
  return { ok: true, value: decode(reply.text) };
}

/** HTTPExtender.Filter, nodeCacheCapable or not (`asked`: the node names sent). */
export function schedulerFilter(reply: WireReply, asked: readonly string[]): SchedulerReading<FilterResultView> {
  const read = sent('filter', reply, decodeFilterResult);
  if (!read.ok) return read;
  if (read.value.Error !== '') return { ok: false, error: read.value.Error };
  const known = new Set(asked);
  for (const name of read.value.NodeNames ?? []) {
    if (!known.has(name)) return { ok: false, error: `extender "${EXTENDER_URL}" claims a filtered node "${name}" which is not found in the input node list` };
  }
  return read;
}

/** HTTPExtender.Prioritize (an error here is ignored by kube-scheduler: the pod is scored without us). */
export function schedulerPrioritize(reply: WireReply): SchedulerReading<HostPriorityView[]> {
  return sent('prioritize', reply, decodeHostPriorityList);
}

/** HTTPExtender.ProcessPreemption, up to convertToVictims (node and pod lookups are the scheduler's own). */
export function schedulerPreempt(reply: WireReply): SchedulerReading<Map<string, MetaVictimsView>> {
  return sent('preempt', reply, decodePreemptionResult);
}

class DecodeError extends Error {}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DecodeError(`not JSON: ${String(error)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function structFields(value: unknown, struct: string, fields: readonly string[]): Record<string, unknown> {
  if (!isObject(value)) throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go value of type ${struct}`);
  for (const key of Object.keys(value)) if (!fields.includes(key)) throw new DecodeError(`${struct}: unexpected key ${JSON.stringify(key)} (fields: ${fields.join(', ')})`);
  return value;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function goString(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type string`);
  return value;
}

/** A map[string]string; null decodes to an empty map. */
function stringMap(value: unknown, field: string): Map<string, string> {
  const map = new Map<string, string>();
  if (value === undefined || value === null) return map;
  if (!isObject(value)) throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type map[string]string`);
  for (const key of Object.keys(value)) map.set(key, goString(value[key], `${field}[${JSON.stringify(key)}]`));
  return map;
}

/**
 * int64 fields must be integer literals in the text: JSON.parse reads 1.0
 * and 1e0 as 1, where Go's decoder refuses them.
 */
function int64Literals(text: string, key: string): number {
  const all = text.split(`"${key}":`).length - 1;
  const integers = text.match(new RegExp(`"${key}":-?(0|[1-9][0-9]*)(?=[,}\\s])`, 'g'))?.length ?? 0;
  if (integers !== all) throw new DecodeError(`${all - integers} ${key} value(s) are not integer literals (Go int64)`);
  return all;
}

function goInt64(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new DecodeError(`json: cannot unmarshal ${JSON.stringify(value)} into Go struct field ${field} of type int64`);
  return value;
}

export function decodeFilterResult(text: string): FilterResultView {
  const fields = structFields(parse(text), 'ExtenderFilterResult', ['Nodes', 'NodeNames', 'FailedNodes', 'FailedAndUnresolvableNodes', 'Error']);
  let nodes: FilterResultView['Nodes'] = null;
  if (fields.Nodes !== undefined && fields.Nodes !== null) {
    if (!isObject(fields.Nodes)) throw new DecodeError('json: cannot unmarshal into Go struct field ExtenderFilterResult.Nodes of type v1.NodeList');
    const items = fields.Nodes.items ?? [];
    if (!Array.isArray(items) || !items.every(isObject)) throw new DecodeError('ExtenderFilterResult.Nodes.items must be an array of Node objects');
    nodes = { items };
  }
  let names: string[] | null = null;
  if (fields.NodeNames !== undefined && fields.NodeNames !== null) {
    if (!Array.isArray(fields.NodeNames)) throw new DecodeError(`json: cannot unmarshal ${jsonType(fields.NodeNames)} into Go struct field ExtenderFilterResult.NodeNames of type []string`);
    names = fields.NodeNames.map((name, i) => goString(name, `ExtenderFilterResult.NodeNames[${i}]`));
  }
  return {
    Nodes: nodes,
    NodeNames: names,
    FailedNodes: stringMap(fields.FailedNodes, 'ExtenderFilterResult.FailedNodes'),
    FailedAndUnresolvableNodes: stringMap(fields.FailedAndUnresolvableNodes, 'ExtenderFilterResult.FailedAndUnresolvableNodes'),
    Error: goString(fields.Error, 'ExtenderFilterResult.Error'),
  };
}

export function decodeHostPriorityList(text: string): HostPriorityView[] {
  const list = parse(text);
  if (!Array.isArray(list)) throw new DecodeError(`json: cannot unmarshal ${jsonType(list)} into Go value of type v1.HostPriorityList`);
  if (int64Literals(text, 'Score') !== list.length) throw new DecodeError('every HostPriority has one Score');
  return list.map((entry) => {
    const fields = structFields(entry, 'HostPriority', ['Host', 'Score']);
    return { Host: goString(fields.Host, 'HostPriority.Host'), Score: goInt64(fields.Score, 'HostPriority.Score') };
  });
}

export function decodePreemptionResult(text: string): Map<string, MetaVictimsView> {
  const fields = structFields(parse(text), 'ExtenderPreemptionResult', ['NodeNameToMetaVictims']);
  const out = new Map<string, MetaVictimsView>();
  const byNode = fields.NodeNameToMetaVictims;
  if (byNode === undefined || byNode === null) return out;
  if (!isObject(byNode)) throw new DecodeError('json: cannot unmarshal into Go struct field ExtenderPreemptionResult.NodeNameToMetaVictims of type map[string]*v1.MetaVictims');
  int64Literals(text, 'NumPDBViolations');
  for (const node of Object.keys(byNode)) {
    const field = `ExtenderPreemptionResult.NodeNameToMetaVictims[${JSON.stringify(node)}]`;
    const meta = structFields(byNode[node], 'MetaVictims', ['Pods', 'NumPDBViolations']);
    const pods = meta.Pods ?? [];
    if (!Array.isArray(pods)) throw new DecodeError(`json: cannot unmarshal ${jsonType(pods)} into Go struct field ${field}.Pods of type []*v1.MetaPod`);
    out.set(node, {
      Pods: pods.map((pod, i) => ({ UID: goString(structFields(pod, 'MetaPod', ['UID']).UID, `${field}.Pods[${i}].UID`) })),
      NumPDBViolations: goInt64(meta.NumPDBViolations, `${field}.NumPDBViolations`),
    });
  }
  return out;
}
