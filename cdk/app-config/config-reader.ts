/**
 * A configuration value that is missing or invalid. The message names the key
 * by its full dotted path and says what is allowed, so a failed `cdk synth`
 * tells the operator exactly which line of their config to fix.
 */
export class AppConfigError extends Error {
  override readonly name = 'AppConfigError';

  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`invalid configuration: ${key}: ${problem}`);
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
 */
export class ConfigReader {
  private readonly seen = new Set<string>();
  private readonly raw: Raw;

  constructor(
    raw: unknown,
    readonly path: string,
  ) {
    if (raw === undefined) {
      this.raw = {};
    } else if (isPlainObject(raw)) {
      this.raw = raw;
    } else {
      throw new AppConfigError(path || '(root)', `must be an object, got ${describe(raw)}`);
    }
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

  fail(key: string, problem: string): never {
    throw new AppConfigError(this.keyPath(key), problem);
  }

  string(key: string, rule: { default: string; pattern: RegExp; allowed: string }): string {
    const value = this.optionalString(key, rule);
    return value ?? rule.default;
  }

  optionalString(key: string, rule: { pattern: RegExp; allowed: string }): string | undefined {
    const value = this.take(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !rule.pattern.test(value)) {
      this.fail(key, `must be ${rule.allowed}, got ${describe(value)}`);
    }
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], defaultValue: T): T {
    const value = this.take(key);
    if (value === undefined) return defaultValue;
    const match = allowed.find((option) => option === value);
    if (match === undefined) {
      this.fail(key, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`);
    }
    return match;
  }

  integer(key: string, rule: NumberRule): number {
    const value = this.take(key);
    if (value === undefined) return rule.default;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || value > rule.max) {
      this.fail(key, `must be an integer from ${rule.min} to ${rule.max}, got ${describe(value)}`);
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
    if (typeof value !== 'boolean') this.fail(key, `must be true or false, got ${describe(value)}`);
    return value;
  }

  stringList(key: string, rule: { default: readonly string[]; pattern: RegExp; allowed: string; minItems: number }): string[] {
    const value = this.take(key);
    if (value === undefined) return [...rule.default];
    if (!Array.isArray(value) || value.length < rule.minItems) {
      this.fail(key, `must be a list of at least ${rule.minItems} item(s), each ${rule.allowed}; got ${describe(value)}`);
    }
    return value.map((item: unknown, index: number) => {
      if (typeof item !== 'string' || !rule.pattern.test(item)) {
        throw new AppConfigError(`${this.keyPath(key)}[${index}]`, `must be ${rule.allowed}, got ${describe(item)}`);
      }
      return item;
    });
  }

  /** A map of string to string (environment variables, node labels). */
  stringMap(
    key: string,
    rule: { default: Readonly<Record<string, string>>; keyPattern: RegExp; allowedKeys: string; maxValueLength: number },
  ): Record<string, string> {
    const value = this.take(key);
    if (value === undefined) return { ...rule.default };
    if (!isPlainObject(value)) this.fail(key, `must be an object of string values, got ${describe(value)}`);
    const result: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (!rule.keyPattern.test(name)) {
        throw new AppConfigError(`${this.keyPath(key)}.${name}`, `key must be ${rule.allowedKeys}`);
      }
      if (typeof item !== 'string' || item.length > rule.maxValueLength) {
        throw new AppConfigError(
          `${this.keyPath(key)}.${name}`,
          `must be a string of at most ${rule.maxValueLength} characters, got ${describe(item)}`,
        );
      }
      result[name] = item;
    }
    return result;
  }

  child(key: string): ConfigReader {
    return new ConfigReader(this.take(key), this.keyPath(key));
  }

  /** Readers for each item of a list of objects; `fallback` when the key is absent. */
  objectList(key: string, rule: { minItems: number; fallback: readonly unknown[] }): ConfigReader[] {
    const value = this.take(key);
    const list = value === undefined ? rule.fallback : value;
    if (!Array.isArray(list) || list.length < rule.minItems) {
      this.fail(key, `must be a list of at least ${rule.minItems} object(s), got ${describe(value)}`);
    }
    return list.map((item: unknown, index: number) => new ConfigReader(item, `${this.keyPath(key)}[${index}]`));
  }

  /** Call after reading every key: any key left over is unknown. */
  done(): void {
    const unknown = Object.keys(this.raw).filter((key) => !this.seen.has(key));
    const [first] = unknown;
    if (first !== undefined) {
      const known = [...this.seen].sort().join(', ');
      this.fail(first, `unknown key (allowed keys here: ${known})`);
    }
  }
}
