import { isRecord, recordList, stringField, stringMap } from './kube-json';

/**
 * Kubernetes label selectors, as k8s.io/apimachinery/pkg/labels matches
 * them: in their string form (`app=web,tier!=db`, `env in (prod,staging)`,
 * `!legacy`, as kubectl -l accepts them), and in their object forms as
 * kube-scheduler reads them from a pod: metav1.LabelSelector (pod affinity
 * terms, topology spread constraints, namespace selectors) and
 * NodeSelectorRequirements (node affinity, which adds Gt and Lt).
 */

export type Labels = Readonly<Record<string, string>>;

export type SelectorOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

/** Requirements that must all hold; none matches everything. */
export type LabelSelector = readonly SelectorRequirement[];

/**
 * A selector read from an object form: its requirements, or null for one
 * that matches nothing: a nil selector, or one that does not parse
 * (metav1.LabelSelectorAsSelector gives labels.Nothing() for both).
 */
export type ObjectSelector = LabelSelector | null;

export type SelectorParse = { readonly ok: true; readonly selector: LabelSelector } | { readonly ok: false; readonly error: string };

const NAME = '[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const PREFIX = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const KEY = new RegExp(`^(${PREFIX}/)?${NAME}$`);
const VALUE = new RegExp(`^(${NAME})?$`);

export function parseLabelSelector(text: string): SelectorParse {
  const parts = splitTopLevel(text);
  if (parts === undefined) return { ok: false, error: 'unbalanced parentheses' };
  if (parts.every((part) => part.trim() === '')) return { ok: false, error: 'empty selector' };
  const selector: SelectorRequirement[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const requirement = parseRequirement(part);
    if (typeof requirement === 'string') return { ok: false, error: requirement };
    selector.push(requirement);
  }
  return { ok: true, selector };
}

/** Whether the labels satisfy one requirement (labels.Requirement.Matches). */
export function requirementMatches(requirement: SelectorRequirement, labels: Labels | undefined): boolean {
  const value = labels?.[requirement.key];
  switch (requirement.operator) {
    case 'Equals':
    case 'In':
      return value !== undefined && requirement.values.includes(value);
    case 'NotEquals':
    case 'NotIn':
      return value === undefined || !requirement.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      // Both sides must be base-10 int64s (strconv.ParseInt) and the requirement must name exactly one value.
      const have = int64Of(value);
      const bound = requirement.values.length === 1 ? int64Of(requirement.values[0]) : undefined;
      if (have === undefined || bound === undefined) return false;
      return requirement.operator === 'Gt' ? have > bound : have < bound;
    }
  }
}

/** Whether the labels satisfy every requirement; null (an object-form selector that matches nothing) matches no labels. */
export function selectorMatches(selector: ObjectSelector, labels: Labels | undefined): boolean {
  if (selector === null) return false;
  for (const requirement of selector) if (!requirementMatches(requirement, labels)) return false;
  return true;
}

/** True for a selector that matches every set of labels (labels.Selector.Empty()). */
export function isEverything(selector: ObjectSelector): boolean {
  return selector !== null && selector.length === 0;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(text, 10, 64): an optional sign and decimal digits, within int64; undefined otherwise. */
function int64Of(text: string | undefined): bigint | undefined {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

const OBJECT_OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);
const NODE_OPERATORS: ReadonlySet<string> = new Set([...OBJECT_OPERATORS, 'Gt', 'Lt']);

/** One requirement of an object form (`{key, operator, values}`); undefined when its operator is not one of `operators`. */
function requirementOf(raw: Readonly<Record<string, unknown>>, operators: ReadonlySet<string>): SelectorRequirement | undefined {
  const key = stringField(raw.key);
  const operator = stringField(raw.operator);
  if (key === undefined || operator === undefined || !operators.has(operator)) return undefined;
  const values = Array.isArray(raw.values) ? raw.values.filter((v): v is string => typeof v === 'string') : [];
  return { key, operator: operator as SelectorOperator, values };
}

/** metav1.LabelSelectorAsSelector: a nil selector matches nothing, `{}` everything; an operator it does not know (Gt and Lt included) makes it match nothing. */
export function labelSelectorOf(raw: unknown): ObjectSelector {
  if (!isRecord(raw)) return null;
  const requirements: SelectorRequirement[] = Object.entries(stringMap(raw.matchLabels)).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  for (const expression of recordList(raw.matchExpressions)) {
    const requirement = requirementOf(expression, OBJECT_OPERATORS);
    if (requirement === undefined) return null;
    requirements.push(requirement);
  }
  return requirements;
}

/** The NodeSelectorRequirements of a node selector term's matchExpressions or matchFields (Gt and Lt allowed); undefined when one does not parse (the term then matches no node). */
export function nodeSelectorRequirementsOf(raw: unknown): LabelSelector | undefined {
  const out: SelectorRequirement[] = [];
  for (const expression of recordList(raw)) {
    const requirement = requirementOf(expression, NODE_OPERATORS);
    if (requirement === undefined) return undefined;
    out.push(requirement);
  }
  return out;
}

/** The selector with a `key=value` requirement added for each of `keys` the pod has (matchLabelKeys), ahead of its own. */
export function withLabelKeys(selector: ObjectSelector, keys: readonly string[], podLabels: Labels): ObjectSelector {
  if (selector === null) return selector;
  const added: SelectorRequirement[] = [];
  for (const key of keys) {
    const value = podLabels[key];
    if (value !== undefined) added.push({ key, operator: 'In', values: [value] });
  }
  return added.length === 0 ? selector : [...added, ...selector];
}

function splitTopLevel(text: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth < 0) return undefined;
    } else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(text.slice(start));
  return parts;
}

function parseRequirement(part: string): SelectorRequirement | string {
  if (part === '') return 'empty requirement (stray comma)';
  const setMatch = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part);
  if (setMatch) {
    const [, key = '', op, list = ''] = setMatch;
    const values = list.split(',').map((v) => v.trim());
    if (values.length === 0 || values.some((v) => v === '' || !VALUE.test(v))) return `invalid value list in "${part}"`;
    return checkedKey(key, part) ?? { key, operator: op === 'in' ? 'In' : 'NotIn', values };
  }
  const eqMatch = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
  if (eqMatch) {
    const [, key = '', op, value = ''] = eqMatch;
    if (!VALUE.test(value)) return `invalid label value "${value}" in "${part}"`;
    return checkedKey(key, part) ?? { key, operator: op === '!=' ? 'NotEquals' : 'Equals', values: [value] };
  }
  if (part.startsWith('!')) {
    const key = part.slice(1).trim();
    return checkedKey(key, part) ?? { key, operator: 'DoesNotExist', values: [] };
  }
  return checkedKey(part, part) ?? { key: part, operator: 'Exists', values: [] };
}

function checkedKey(key: string, part: string): string | undefined {
  return KEY.test(key) ? undefined : `invalid label key "${key}" in "${part}"`;
}
