import { z } from 'zod';

// Reading the config schema's structure: the object at a key path, the keys
// it allows, what each setting's docs say. The error messages (unknown keys,
// keys of the other cluster mode) and the docs tables both read it.

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

function defOf(schema: Schema): Def {
  return schema._zod.def as Def;
}

/** Wrappers that add a default, optionality or a transform around the schema that says what a value is. */
const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** Every schema from the outermost wrapper to the one that checks the value, outermost first. */
export function wrappersOf(schema: Schema): Schema[] {
  const chain = [schema];
  for (let current = schema; ; ) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType as Schema;
    else if (def.type === 'pipe') {
      // A transform after the check (`.transform`) or before it (`z.preprocess`): the check is the other side.
      const input = def.in as Schema;
      current = defOf(input).type === 'transform' ? (def.out as Schema) : input;
    } else return chain;
    chain.push(current);
  }
}

export function unwrap(schema: Schema): Schema {
  return wrappersOf(schema).at(-1) ?? schema;
}

export interface ObjectSchema {
  readonly shape: Readonly<Record<string, Schema>>;
  /** The other options of a union picked by a discriminator, with the discriminator's value of each. */
  readonly alternatives: readonly { readonly discriminator: string; readonly value: unknown; readonly shape: Readonly<Record<string, Schema>> }[];
}

function literalOf(schema: Schema): unknown {
  const def = defOf(unwrap(schema));
  return def.type === 'literal' ? (def.values as unknown[])[0] : undefined;
}

/** The object schema a value is read with, a union's option picked by the value's discriminator (the first when it matches none). */
export function objectOf(schema: Schema, value: unknown): ObjectSchema | undefined {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'object') return { shape: def.shape as Record<string, Schema>, alternatives: [] };
  if (def.type !== 'union' || typeof def.discriminator !== 'string') return undefined;
  const discriminator = def.discriminator;
  const options = (def.options as Schema[]).map((option) => objectOf(option, value)).filter((option) => option !== undefined);
  const written = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[discriminator] : undefined;
  const chosen = options.find((option) => option.shape[discriminator] !== undefined && literalOf(option.shape[discriminator]) === written) ?? options[0];
  if (chosen === undefined) return undefined;
  const alternatives = options
    .filter((option) => option !== chosen)
    .map((option) => ({ discriminator, value: literalOf(option.shape[discriminator] as Schema), shape: option.shape }));
  return { shape: chosen.shape, alternatives };
}

/** The schema of the value at `path` below `schema`, following `input` to pick union options. */
export function schemaAt(schema: Schema, path: readonly PropertyKey[], input: unknown): Schema | undefined {
  let current: Schema | undefined = schema;
  let value = input;
  for (const key of path) {
    if (current === undefined) return undefined;
    const object = objectOf(current, value);
    const def = defOf(unwrap(current));
    if (object !== undefined) current = object.shape[String(key)];
    else if (def.type === 'array') current = def.element as Schema;
    else if (def.type === 'record') current = def.valueType as Schema;
    else return undefined;
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return current;
}

/** The docs of a setting, merged along its wrappers: an outer `.meta()` overrides what the rule set inside. */
export function metaOf(schema: Schema): z.core.GlobalMeta {
  return wrappersOf(schema)
    .reverse()
    .reduce<z.core.GlobalMeta>((merged, layer) => ({ ...merged, ...(z.globalRegistry.get(layer) ?? {}) }), {});
}

/** The default a setting takes when left out, if it is one value. */
export function defaultOf(schema: Schema): { readonly value: unknown } | undefined {
  for (const layer of wrappersOf(schema)) {
    const def = defOf(layer);
    if (def.type === 'default') return { value: def.defaultValue };
    if (def.type === 'prefault') return undefined;
  }
  return undefined;
}

/** What a setting holds: an object of settings (a table of its own keys), a list, or a value. */
export function kindOf(schema: Schema): 'object' | 'list' | 'value' {
  const type = defOf(unwrap(schema)).type;
  return type === 'object' || type === 'union' ? 'object' : type === 'array' ? 'list' : 'value';
}
