// Kubernetes label selectors in their object forms, as kube-scheduler reads
// them: metav1.LabelSelector (pod affinity terms, topology spread) and
// NodeSelectorRequirement (node affinity, with Gt and Lt).
import { isRecord, recordList, stringField, stringMap } from '../../lambdas/scheduling/kube-json';

export type Labels = Readonly<Record<string, string>>;

export interface Requirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values: readonly string[];
}

/** A parsed selector; `nothing` matches no labels (a nil metav1.LabelSelector or one that does not parse). */
export type Selector = { readonly nothing: true } | { readonly nothing: false; readonly requirements: readonly Requirement[] };

export const NOTHING: Selector = { nothing: true };
export const EVERYTHING: Selector = { nothing: false, requirements: [] };

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']);

function requirementOf(raw: Readonly<Record<string, unknown>>, allowCompare: boolean): Requirement | undefined {
  const key = stringField(raw.key);
  const operator = stringField(raw.operator);
  if (key === undefined || operator === undefined || !OPERATORS.has(operator)) return undefined;
  if (!allowCompare && (operator === 'Gt' || operator === 'Lt')) return undefined;
  const values = Array.isArray(raw.values) ? raw.values.filter((v): v is string => typeof v === 'string') : [];
  return { key, operator: operator as Requirement['operator'], values };
}

/** metav1.LabelSelectorAsSelector: nil matches nothing, {} everything; an operator it does not know makes it match nothing. */
export function labelSelectorOf(raw: unknown): Selector {
  if (!isRecord(raw)) return NOTHING;
  const requirements: Requirement[] = Object.entries(stringMap(raw.matchLabels)).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  for (const expression of recordList(raw.matchExpressions)) {
    const requirement = requirementOf(expression, false);
    if (requirement === undefined) return NOTHING;
    requirements.push(requirement);
  }
  return { nothing: false, requirements };
}

/** NodeSelectorRequirements of one term (Gt and Lt allowed); undefined when one does not parse (the term then matches no node). */
export function nodeRequirementsOf(raw: unknown): Requirement[] | undefined {
  const out: Requirement[] = [];
  for (const expression of recordList(raw)) {
    const requirement = requirementOf(expression, true);
    if (requirement === undefined) return undefined;
    out.push(requirement);
  }
  return out;
}

function integerOf(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

export function requirementMatches(requirement: Requirement, labels: Labels | undefined): boolean {
  const value = labels?.[requirement.key];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && requirement.values.includes(value);
    case 'NotIn':
      return value === undefined || !requirement.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = integerOf(value);
      const bound = integerOf(requirement.values[0]);
      if (have === undefined || bound === undefined || requirement.values.length !== 1) return false;
      return requirement.operator === 'Gt' ? have > bound : have < bound;
    }
  }
}

export function selectorMatches(selector: Selector, labels: Labels | undefined): boolean {
  if (selector.nothing) return false;
  for (const requirement of selector.requirements) if (!requirementMatches(requirement, labels)) return false;
  return true;
}

/** True for a selector that matches every set of labels (kube-scheduler's selector.Empty()). */
export function isEverything(selector: Selector): boolean {
  return !selector.nothing && selector.requirements.length === 0;
}

/** The selector with `key=value` requirements added for each of `keys` the pod has (matchLabelKeys). */
export function withLabelKeys(selector: Selector, keys: readonly string[], podLabels: Labels): Selector {
  if (selector.nothing) return selector;
  const added: Requirement[] = [];
  for (const key of keys) {
    const value = podLabels[key];
    if (value !== undefined) added.push({ key, operator: 'In', values: [value] });
  }
  return added.length === 0 ? selector : { nothing: false, requirements: [...added, ...selector.requirements] };
}
