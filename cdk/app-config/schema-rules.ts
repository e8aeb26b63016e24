import { z } from 'zod';

// The leaves the config schema is built of, each with the message an operator
// reads when a value breaks it: the key (added by parse-app-config.ts), what
// is allowed, and what was written. `allowed` also fills the Allowed column of
// docs/configuration.md (config-docs.ts), so the docs and the error say the same.

/** A string setting: what matches `pattern`, described by `allowed` ("an EC2 instance type such as m7i.large"). */
export interface TextRule {
  readonly pattern: RegExp;
  readonly allowed: string;
}

/** What the docs table shows of a setting besides its key; every part is optional. */
export interface SettingDoc {
  /** The Meaning column: what the setting does, in one line of Markdown. */
  readonly description?: string;
  /** The Allowed column when the rule's own text is not what the docs should say. */
  readonly allowed?: string;
  /** The Default column when the default is not one value (derived from another setting, or per setting). */
  readonly defaultText?: string;
}

declare module 'zod' {
  interface GlobalMeta {
    /** See SettingDoc. */
    allowed?: string;
    defaultText?: string;
  }
}

/** What was written, as the messages quote it. */
export function describeValue(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

type Issue = { readonly input?: unknown };

/** "must be <allowed>, got <value>", or "is required (<allowed>)" when the key is missing. */
function mustBe(allowed: string): (issue: Issue) => string {
  return (issue) => (issue.input === undefined ? `is required (${allowed})` : `must be ${allowed}, got ${describeValue(issue.input)}`);
}

export function text(rule: TextRule) {
  const error = mustBe(rule.allowed);
  return z.string({ error }).regex(rule.pattern, { error }).meta({ allowed: rule.allowed });
}

export function integer(min: number, max: number) {
  const error = mustBe(`an integer from ${min} to ${max}`);
  return z.int({ error }).min(min, { error }).max(max, { error }).meta({ allowed: `${min}–${max}` });
}

export function flag() {
  return z.boolean({ error: mustBe('true or false') }).meta({ allowed: '`true`, `false`' });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const listed = values.map((value) => JSON.stringify(value)).join(', ');
  return z
    .enum(values, { error: (issue) => (issue.input === undefined ? `is required (one of ${listed})` : `must be one of ${listed}, got ${describeValue(issue.input)}`) })
    .meta({ allowed: values.map((value) => `\`${value}\``).join(', ') });
}

function listOf<T extends z.ZodType>(item: T, min: number, itemAllowed: string, docsItemAllowed: string) {
  const allowed = `a list of at least ${min} item(s), each ${itemAllowed}`;
  const error = (issue: Issue) => (issue.input === undefined ? `is required (${allowed})` : `must be ${allowed}; got ${describeValue(issue.input)}`);
  return z
    .array(item, { error })
    .min(min, { error })
    .meta({ allowed: `${min > 0 ? `≥ ${min}, each ` : ''}${docsItemAllowed}` });
}

/** A list of strings, each following `rule`; at least `min` of them. */
export function list(rule: TextRule, min = 0) {
  return listOf(text(rule), min, rule.allowed, rule.allowed);
}

/** A list of words from `values`; at least `min` of them. */
export function wordList<const T extends readonly [string, ...string[]]>(values: T, min = 0) {
  return listOf(oneOf(values), min, values.map((value) => JSON.stringify(value)).join(' or '), values.map((value) => `\`${value}\``).join(', '));
}

/** A map of names to strings (environment variables, Kubernetes labels). */
export function stringMap(rule: { readonly key: TextRule; readonly value?: TextRule; readonly maxValueLength: number }) {
  const tooLong = (issue: Issue) => `must be a string of at most ${rule.maxValueLength} characters, got ${describeValue(issue.input)}`;
  let value = z.string({ error: tooLong }).max(rule.maxValueLength, { error: tooLong });
  if (rule.value) value = value.regex(rule.value.pattern, { error: mustBe(rule.value.allowed) });
  return z
    .record(z.string().regex(rule.key.pattern), value, {
      error: (issue) => (issue.code === 'invalid_key' ? `key must be ${rule.key.allowed}` : `must be an object of string values, got ${describeValue(issue.input)}`),
    })
    .meta({ allowed: rule.value ? `${rule.key.allowed} → ${rule.value.allowed}` : `${rule.key.allowed} → string` });
}

/** An object of settings: an unknown key is an error (named with the key it most likely meant, parse-app-config.ts). */
export function settings<const S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape, { error: (issue) => `must be an object, got ${describeValue(issue.input)}` });
}

/** A list of objects, at least `min` of them. */
export function objectList<T extends z.ZodType>(item: T, min = 0) {
  const error = (issue: Issue) => `must be a list of at least ${min} object(s), got ${describeValue(issue.input)}`;
  return z.array(item, { error }).min(min, { error });
}

/** What a cross-field check sees: the object's value and the problems found in it so far. */
export type CheckContext<T> = z.core.ParsePayload<T>;

/**
 * A rule between keys of one object. It runs even when some keys already have
 * problems (zod skips checks after one by default), so one run reports every
 * problem: the rule sees what was written where a key failed, and skips such
 * keys with `reported`. It does not run on what is not an object at all.
 */
export function crossField<T>(rule: (ctx: CheckContext<T>) => void): z.core.$ZodCheck<T> {
  const check = z.check<T>(rule);
  check._zod.def.when = (payload) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value);
  return check;
}

/** Whether any of `keys` (paths below the checked object, e.g. `['existing', 'vpcId']`) already has a problem. */
export function reported(ctx: CheckContext<unknown>, ...keys: readonly (string | readonly (string | number)[])[]): boolean {
  return keys.some((key) => {
    const path = typeof key === 'string' ? [key] : key;
    return ctx.issues.some((issue) => path.every((part, index) => issue.path?.[index] === part));
  });
}

/** Records a problem at `path` below the checked object; `input` undefined marks a missing key. */
export function report(ctx: CheckContext<unknown>, path: readonly (string | number)[], message: string, input?: unknown): void {
  ctx.issues.push({ code: 'custom', path: [...path], message, input });
}
