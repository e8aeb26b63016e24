import { closestKey } from './closest-key';

/** One missing or invalid value, under its full dotted key. */
export interface ConfigProblem {
  readonly key: string;
  readonly problem: string;
}

/**
 * Configuration that is missing or invalid. Each problem names the key by its
 * full dotted path and says what is allowed, and all of them come at once, so
 * a failed `cdk synth` tells the operator every line of their config to fix.
 */
export class AppConfigError extends Error {
  override readonly name = 'AppConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly key: string,
    readonly problem: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ key, problem }, ...more];
    super(problems.length === 1 ? `invalid configuration: ${key}: ${problem}` : `invalid configuration (${problems.length} problems):\n${listProblems(problems, '  ')}`);
    this.problems = problems;
  }

  /** Every problem as `key: problem`, one a line. */
  get detail(): string {
    return listProblems(this.problems, '');
  }
}

function listProblems(problems: readonly ConfigProblem[], indent: string): string {
  return problems.map(({ key, problem }) => `${indent}${key}: ${problem}`).join('\n');
}

/** The problems found in one document, shared by the readers of all its objects. */
class ProblemList {
  private readonly byKey = new Map<string, { problem: string; missing: boolean }>();

  /** The first problem of a key is kept: a second one is a consequence of it. */
  add(key: string, problem: string, missing = false): void {
    if (!this.byKey.has(key)) this.byKey.set(key, { problem, missing });
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Forgets that `key` is missing: an unknown key that looks like it says why. */
  dropMissing(key: string): void {
    if (this.byKey.get(key)?.missing === true) this.byKey.delete(key);
  }

  throwIfAny(): void {
    const [first, ...more] = [...this.byKey].map(([key, { problem }]) => ({ key, problem }));
    if (first !== undefined) throw new AppConfigError(first.key, first.problem, more);
  }
}

type Raw = Readonly<Record<string, unknown>>;

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface NumberRule<T extends number = number> {
  readonly default: T;
  readonly min: number;
  readonly max: number;
}

/**
 * Reads one object of the configuration. Every accessor records the key it
 * read, so `done()` can reject keys nobody asked for: a misspelt option fails
 * synth instead of being silently ignored.
 *
 * A bad value is recorded, not thrown: the accessor returns the default and
 * reading goes on, so one run reports every problem of the document (and the
 * unknown keys of an object whose other values are wrong). `assertValid()`
 * on the root reader throws them all as one AppConfigError.
 */
export class ConfigReader {
  private readonly seen = new Set<string>();
  private readonly raw: Raw;
  /** Not an object: its own problem says so, and what it lacks would only repeat it. */
  private readonly invalid: boolean;

  constructor(
    raw: unknown,
    readonly path: string,
    private readonly problems: ProblemList = new ProblemList(),
  ) {
    this.invalid = raw !== undefined && !isPlainObject(raw);
    this.raw = isPlainObject(raw) ? raw : {};
    if (this.invalid) problems.add(path || '(root)', `must be an object, got ${describe(raw)}`);
  }

  keyPath(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  has(key: string): boolean {
    return this.raw[key] !== undefined;
  }

  private take(key: string): unknown {
    this.seen.add(key);
    return this.raw[key];
  }

  /** Records a problem with `key` (a dotted path below this object is fine too). */
  report(key: string, problem: string): void {
    if (!this.invalid) this.problems.add(this.keyPath(key), problem);
  }

  /** Whether `key` already has a problem: checks that combine keys skip a bad one. */
  reported(...keys: string[]): boolean {
    return keys.some((key) => this.problems.has(this.keyPath(key)));
  }

  /** Records a problem and stops reading the document: for what no default can stand in for. */
  fail(key: string, problem: string): never {
    this.report(key, problem);
    this.problems.throwIfAny();
    throw new AppConfigError(this.keyPath(key), problem);
  }

  /** Throws every problem recorded in the document, if there are any. */
  assertValid(): void {
    this.problems.throwIfAny();
  }

  string(key: string, rule: { default: string; pattern: RegExp; allowed: string }): string {
    const value = this.optionalString(key, rule);
    return value ?? rule.default;
  }

  optionalString(key: string, rule: { pattern: RegExp; allowed: string }): string | undefined {
    const value = this.take(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !rule.pattern.test(value)) {
      this.report(key, `must be ${rule.allowed}, got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** A string that has no default; when missing, '' stands in and the problem is recorded. */
  requiredString(key: string, rule: { pattern: RegExp; allowed: string }): string {
    const value = this.optionalString(key, rule);
    if (value === undefined && !this.reported(key) && !this.invalid) this.problems.add(this.keyPath(key), `is required (${rule.allowed})`, true);
    return value ?? '';
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], defaultValue: T): T {
    const value = this.take(key);
    if (value === undefined) return defaultValue;
    const match = allowed.find((option) => option === value);
    if (match === undefined) {
      this.report(key, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`);
      return defaultValue;
    }
    return match;
  }

  integer(key: string, rule: NumberRule): number {
    const value = this.take(key);
    if (value === undefined) return rule.default;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
      this.report(key, `must be an integer from ${rule.min} to ${rule.max}, got ${describe(value)}`);
      return rule.default;
    }
    return value;
  }

  optionalInteger(key: string, rule: { min: number; max: number }): number | undefined {
    if (!this.has(key)) {
      this.take(key);
      return undefined;
    }
    return this.integer(key, { ...rule, default: rule.min });
  }

  boolean(key: string, defaultValue: boolean): boolean {
    const value = this.take(key);
    if (value === undefined) return defaultValue;
    if (typeof value !== 'boolean') {
      this.report(key, `must be true or false, got ${describe(value)}`);
      return defaultValue;
    }
    return value;
  }

  stringList(key: string, rule: { default: readonly string[]; pattern: RegExp; allowed: string; minItems: number }): string[] {
    const value = this.take(key);
    if (value === undefined) return [...rule.default];
    if (!Array.isArray(value) || value.length < rule.minItems) {
      this.report(key, `must be a list of at least ${rule.minItems} item(s), each ${rule.allowed}; got ${describe(value)}`);
      return [...rule.default];
    }
    const items: string[] = [];
    for (const [index, item] of value.entries()) {
      if (typeof item === 'string' && rule.pattern.test(item)) items.push(item);
      else this.report(`${key}[${index}]`, `must be ${rule.allowed}, got ${describe(item)}`);
    }
    return items.length === value.length ? items : [...rule.default];
  }

  /** A map of string to string (environment variables, node labels). */
  stringMap(
    key: string,
    rule: { default: Readonly<Record<string, string>>; keyPattern: RegExp; allowedKeys: string; maxValueLength: number },
  ): Record<string, string> {
    const value = this.take(key);
    if (value === undefined) return { ...rule.default };
    if (!isPlainObject(value)) {
      this.report(key, `must be an object of string values, got ${describe(value)}`);
      return { ...rule.default };
    }
    const result: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (!rule.keyPattern.test(name)) this.report(`${key}.${name}`, `key must be ${rule.allowedKeys}`);
      else if (typeof item !== 'string' || item.length > rule.maxValueLength) {
        this.report(`${key}.${name}`, `must be a string of at most ${rule.maxValueLength} characters, got ${describe(item)}`);
      } else result[name] = item;
    }
    return result;
  }

  child(key: string): ConfigReader {
    return new ConfigReader(this.take(key), this.keyPath(key), this.problems);
  }

  /** Readers for each item of a list of objects; `fallback` when the key is absent. */
  objectList(key: string, rule: { minItems: number; fallback: readonly unknown[] }): ConfigReader[] {
    const value = this.take(key);
    const list = value === undefined ? rule.fallback : value;
    if (!Array.isArray(list) || list.length < rule.minItems) {
      this.report(key, `must be a list of at least ${rule.minItems} object(s), got ${describe(value)}`);
      return [];
    }
    return list.map((item: unknown, index: number) => new ConfigReader(item, `${this.keyPath(key)}[${index}]`, this.problems));
  }

  /**
   * Call after reading every key: each key left over is unknown, named with
   * the valid key it most likely meant. That key's own "is required" is then
   * dropped, since the misspelling is the one thing to fix.
   */
  done(): void {
    for (const key of Object.keys(this.raw).filter((name) => !this.seen.has(name))) {
      const meant = closestKey(key, this.seen);
      if (meant === undefined) {
        this.report(key, `unknown key (allowed keys here: ${[...this.seen].sort().join(', ')})`);
      } else {
        this.problems.dropMissing(this.keyPath(meant));
        this.report(key, `unknown key; did you mean ${meant}?`);
      }
    }
  }
}
