import type { z } from 'zod';
import { AppConfigError, type ConfigProblem } from './app-config-error';
import { closestKey } from './closest-key';
import { objectOf, schemaAt } from './schema-walk';

/** `cluster.gpuNodeGroups[0].name`: the key as an operator finds it in their file. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((key, part) => (typeof part === 'number' ? `${key}[${part}]` : key === '' ? String(part) : `${key}.${String(part)}`), '');
}

interface Found extends ConfigProblem {
  /** The key is missing (not wrong): an unknown key that looks like it says why. */
  readonly missing: boolean;
}

/** Each unknown key of an object: named with the valid key it most likely meant, or as a key of the other mode. */
function unknownKeys(issue: z.core.$ZodIssueUnrecognizedKeys, schema: z.core.$ZodType, input: unknown): (Found & { readonly meant?: string })[] {
  const object = objectOf(schemaAt(schema, issue.path, input) ?? schema, valueAt(input, issue.path));
  const valid = Object.keys(object?.shape ?? {});
  return issue.keys.map((key) => {
    const where = keyPath([...issue.path, key]);
    const elsewhere = object?.alternatives.find((alternative) => key in alternative.shape);
    if (elsewhere !== undefined) {
      return { key: where, problem: `is only allowed when ${keyPath([...issue.path, elsewhere.discriminator])} is ${JSON.stringify(elsewhere.value)}`, missing: false };
    }
    const meant = closestKey(key, valid);
    if (meant === undefined) return { key: where, problem: `unknown key (allowed keys here: ${[...valid].sort().join(', ')})`, missing: false };
    return { key: where, problem: `unknown key; did you mean ${meant}?`, missing: false, meant: keyPath([...issue.path, meant]) };
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}

/**
 * The schema's issues as problems an operator can act on: one per key (the
 * first; a second is a consequence of it), unknown keys named with the key
 * they most likely meant, whose own "is required" is then dropped since the
 * misspelling is the one thing to fix.
 */
export function configProblems(issues: readonly z.core.$ZodIssue[], schema: z.core.$ZodType, input: unknown): ConfigProblem[] {
  const found: Found[] = [];
  const meant = new Set<string>();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const unknown of unknownKeys(issue, schema, input)) {
        found.push(unknown);
        if (unknown.meant !== undefined) meant.add(unknown.meant);
      }
    } else {
      found.push({ key: keyPath(issue.path) || '(root)', problem: issue.message, missing: issue.input === undefined });
    }
  }
  const byKey = new Map<string, string>();
  for (const { key, problem, missing } of found) {
    if (!byKey.has(key) && !(missing && meant.has(key))) byKey.set(key, problem);
  }
  return [...byKey].map(([key, problem]) => ({ key, problem }));
}

/** Parses `raw` with `schema`, or throws one AppConfigError naming every problem. */
export function parseOrThrow<S extends z.core.$ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = (schema as unknown as z.ZodType<z.output<S>>).safeParse(raw, { reportInput: true });
  if (result.success) return result.data;
  const [first, ...more] = configProblems(result.error.issues, schema, raw);
  if (first === undefined) throw new AppConfigError('(root)', result.error.message);
  throw new AppConfigError(first.key, first.problem, more);
}
