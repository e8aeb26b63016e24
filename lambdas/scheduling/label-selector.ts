/**
 * Kubernetes label selectors in their string form (`app=web,tier!=db`,
 * `env in (prod,staging)`, `!legacy`), as kubectl -l accepts them.
 */

export type SelectorOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

export type LabelSelector = readonly SelectorRequirement[];

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

export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const requirement of selector) {
    const value = labels?.[requirement.key];
    switch (requirement.operator) {
      case 'Equals':
      case 'In':
        if (value === undefined || !requirement.values.includes(value)) return false;
        break;
      case 'NotEquals':
      case 'NotIn':
        if (value !== undefined && requirement.values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
    }
  }
  return true;
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
