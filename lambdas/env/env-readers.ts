import { ConfigError } from './config-error';
import { parseDuration } from '../scheduling/duration';

/** The process environment, or any map shaped like it (tests pass plain objects). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Each reader returns the parsed value, the default when the variable is unset,
 * or throws ConfigError. A variable that is empty or only whitespace counts as
 * unset: CloudFormation and shell scripts often pass "" for "not given".
 * Without a default, an unset variable is an error.
 */
interface WithDefault<T> {
  readonly default?: T;
}

function rawValue(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value.trim() === '') return undefined;
  return value.trim();
}

function missingOrDefault<T>(name: string, options: WithDefault<T>, allowed: string): T {
  if (options.default !== undefined) return options.default;
  throw new ConfigError(name, undefined, allowed);
}

/** True when the variable holds a non-blank value. */
export function isEnvSet(env: Env, name: string): boolean {
  return rawValue(env, name) !== undefined;
}

export interface StringOptions extends WithDefault<string> {
  /** The whole (trimmed) value must match. */
  readonly pattern?: RegExp;
  /** Shown in the error when the pattern does not match. */
  readonly description?: string;
}

export function envString(env: Env, name: string, options: StringOptions = {}): string {
  const allowed = options.description ?? (options.pattern ? `a string matching ${String(options.pattern)}` : 'a non-empty string');
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  if (options.pattern && !new RegExp(`^(?:${options.pattern.source})$`, options.pattern.flags).test(value)) {
    throw new ConfigError(name, value, allowed);
  }
  return value;
}

/** An optional string: undefined when unset. */
export function envOptionalString(env: Env, name: string): string | undefined {
  return rawValue(env, name);
}

export interface IntOptions extends WithDefault<number> {
  readonly min?: number;
  readonly max?: number;
}

function rangeText(min: number | undefined, max: number | undefined, unit = ''): string {
  if (min !== undefined && max !== undefined) return `${min}${unit}..${max}${unit}`;
  if (min !== undefined) return `>= ${min}${unit}`;
  if (max !== undefined) return `<= ${max}${unit}`;
  return 'any';
}

export function envInt(env: Env, name: string, options: IntOptions = {}): number {
  return readNumeric(env, name, options, 'an integer', /^[+-]?\d+$/, Number.isSafeInteger);
}

export interface NumberOptions extends WithDefault<number> {
  readonly min?: number;
  readonly max?: number;
}

/** A finite decimal number (weights, ratios). */
export function envNumber(env: Env, name: string, options: NumberOptions = {}): number {
  return readNumeric(env, name, options, 'a finite number', /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, Number.isFinite);
}

function readNumeric(
  env: Env,
  name: string,
  options: IntOptions,
  kind: string,
  syntax: RegExp,
  isValid: (n: number) => boolean,
): number {
  const allowed = `${kind}, ${rangeText(options.min, options.max)}`;
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  const parsed = Number(value);
  const outOfRange = (options.min !== undefined && parsed < options.min) || (options.max !== undefined && parsed > options.max);
  if (!syntax.test(value) || !isValid(parsed) || outOfRange) throw new ConfigError(name, value, allowed);
  return parsed;
}

export interface DurationOptions extends WithDefault<number> {
  /** Bounds in milliseconds. */
  readonly minMs?: number;
  readonly maxMs?: number;
}

/**
 * A duration such as `250ms`, `30s`, `5m`, `1h30m`, returned in milliseconds.
 * A unit is required: a bare `300` is ambiguous (seconds? milliseconds?).
 */
export function envDuration(env: Env, name: string, options: DurationOptions = {}): number {
  const allowed = `a duration like 250ms, 30s, 5m or 1h30m, ${rangeText(options.minMs, options.maxMs, 'ms')}`;
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  const parsed = parseDuration(value);
  if (parsed === undefined) throw new ConfigError(name, value, allowed);
  if (options.minMs !== undefined && parsed < options.minMs) throw new ConfigError(name, value, allowed);
  if (options.maxMs !== undefined && parsed > options.maxMs) throw new ConfigError(name, value, allowed);
  return parsed;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

export function envBoolean(env: Env, name: string, options: WithDefault<boolean> = {}): boolean {
  const allowed = 'true/false, 1/0, yes/no, on/off';
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  const word = value.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ConfigError(name, value, allowed);
}

export interface ListOptions<T extends string> extends WithDefault<readonly T[]> {
  /** When given, every item must be one of these. */
  readonly allowed?: readonly T[];
  /** When given, every item must match (e.g. a Kubernetes name). */
  readonly itemPattern?: RegExp;
}

/** A comma-separated list; items are trimmed and empty items dropped. */
export function envList<T extends string = string>(env: Env, name: string, options: ListOptions<T> = {}): readonly T[] {
  const allowed = options.allowed
    ? `a comma-separated list of [${options.allowed.join(', ')}]`
    : options.itemPattern
      ? `a comma-separated list of items matching ${String(options.itemPattern)}`
      : 'a comma-separated list';
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const itemRegex = options.itemPattern ? new RegExp(`^(?:${options.itemPattern.source})$`, options.itemPattern.flags) : undefined;
  for (const item of items) {
    if (options.allowed && !(options.allowed as readonly string[]).includes(item)) throw new ConfigError(name, value, allowed);
    if (itemRegex && !itemRegex.test(item)) throw new ConfigError(name, value, allowed);
  }
  return items as T[];
}

/** One of a fixed set of words (case-sensitive: what the docs show is what works). */
export function envEnum<const T extends string>(env: Env, name: string, allowedValues: readonly T[], options: WithDefault<T> = {}): T {
  const allowed = `one of [${allowedValues.join(', ')}]`;
  const value = rawValue(env, name);
  if (value === undefined) return missingOrDefault(name, options, allowed);
  const match = allowedValues.find((candidate) => candidate === value);
  if (match === undefined) throw new ConfigError(name, value, allowed);
  return match;
}
