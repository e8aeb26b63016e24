import type { z } from 'zod';
import { addonsSchema, admissionSchema, alarmsSchema, appConfigSchema } from './app-config-schema';
import { CLUSTER_MODES, existingClusterDetailsSchema, newClusterSchema } from './cluster-schema';
import { STACK_SET_VARIABLES } from './stack-set-variables';
import { extenderFunctionSchema, labelerFunctionSchema, reconcilerFunctionSchema } from './functions-schema';
import { karpenterSchema, nodePoolSchema } from './karpenter-schema';
import { monitoringSchema } from './monitoring-schema';
import { gpuNodeGroupSchema, systemNodeGroupSchema } from './node-group-schema';
import { schedulerSchema } from './scheduler-schema';
import { defaultOf, kindOf, metaOf, objectOf, wrappersOf } from './schema-walk';

// The tables of docs/configuration.md, rendered from the schema: each sits
// between `<!-- config-table: NAME -->` and `<!-- /config-table -->`, and
// `npm run config:docs` rewrites them; a unit test fails when they differ.

type Schema = z.core.$ZodType;

interface Table {
  /** The schema of the object whose keys are the rows. */
  readonly schema: Schema;
  /** Written before each key (`existing.`, `karpenter.`). */
  readonly prefix?: string;
  /** Keys left to other tables or to the prose. */
  readonly skip?: readonly string[];
  /** Keys whose object is a table of its own: one row that points there, not a row per key. */
  readonly ownTable?: readonly string[];
}

/** Every generated table by its marker name, in the order of the page. */
export const CONFIG_TABLES: Readonly<Record<string, Table>> = {
  'top-level': { schema: appConfigSchema, skip: ['cluster', 'addons', 'scheduler', 'extender', 'labeler', 'reconciler', 'alarms', 'admission', 'monitoring'] },
  'cluster-new': { schema: newClusterSchema, skip: ['mode'], ownTable: ['systemNodeGroup', 'karpenter'] },
  'system-node-group': { schema: systemNodeGroupSchema, prefix: 'systemNodeGroup.' },
  karpenter: { schema: karpenterSchema, prefix: 'karpenter.' },
  'node-pool': { schema: nodePoolSchema },
  'gpu-node-group': { schema: gpuNodeGroupSchema },
  'cluster-existing': { schema: existingClusterDetailsSchema, prefix: 'existing.' },
  addons: { schema: addonsSchema },
  scheduler: { schema: schedulerSchema },
  extender: { schema: extenderFunctionSchema, prefix: 'extender.' },
  labeler: { schema: labelerFunctionSchema, prefix: 'labeler.' },
  reconciler: { schema: reconcilerFunctionSchema, prefix: 'reconciler.' },
  alarms: { schema: alarmsSchema },
  admission: { schema: admissionSchema },
  monitoring: { schema: monitoringSchema },
};

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function code(value: unknown): string {
  const text = typeof value === 'string' ? (value === '' ? '""' : value) : JSON.stringify(value);
  return `\`${text}\``;
}

function defaultText(schema: Schema): string {
  const meta = metaOf(schema);
  if (meta.defaultText !== undefined) return meta.defaultText;
  const fallback = defaultOf(schema);
  if (fallback !== undefined) return code(fallback.value);
  return wrappersOf(schema).some((layer) => layer._zod.def.type === 'optional') ? 'unset' : 'required';
}

function rows(schema: Schema, table: Table, prefix: string): string[] {
  const object = objectOf(schema, undefined);
  if (object === undefined) throw new Error(`config docs: ${prefix || 'a table'} is not an object`);
  return Object.entries(object.shape).flatMap(([key, setting]) => {
    if (prefix === (table.prefix ?? '') && table.skip?.includes(key)) return [];
    const name = `${prefix}${key}`;
    if (kindOf(setting) === 'object' && !(prefix === (table.prefix ?? '') && table.ownTable?.includes(key))) return rows(setting, table, `${name}.`);
    const meta = metaOf(setting);
    return [`| \`${name}\` | ${cell(defaultText(setting))} | ${cell(meta.allowed ?? '')} | ${cell(meta.description ?? '')} |`];
  });
}

const HEADER = ['| Key | Default | Allowed | Meaning |', '|---|---|---|---|'];

/** One table's Markdown. */
export function renderConfigTable(name: string): string {
  const table = CONFIG_TABLES[name];
  if (table === undefined) throw new Error(`config docs: no table named ${name}`);
  return [...HEADER, ...rows(table.schema, table, table.prefix ?? '')].join('\n');
}

/** The cluster's `mode` row: the options of the union the schema picks by it. */
export function renderClusterModeTable(): string {
  const mode = objectOf(newClusterSchema, undefined)?.shape.mode;
  const modeMeta = mode === undefined ? {} : metaOf(mode);
  return [...HEADER, `| \`mode\` | ${code(CLUSTER_MODES[0])} | ${CLUSTER_MODES.map((mode) => `\`${mode}\``).join(', ')} | ${cell(modeMeta.description ?? '')} |`].join('\n');
}

/** The variables the stack sets on each function (the one writer of them, function-environment.ts). */
export function renderStackSetVariablesTable(): string {
  return [
    '| Variable | Set on | From |',
    '|---|---|---|',
    ...STACK_SET_VARIABLES.map(
      (variable) => `| \`${variable.name}\` | ${variable.functions.join(', ')}${variable.newClusterOnly === true ? ' (a cluster the stack creates)' : ''} | ${/^[\w.]+$/.test(variable.from) ? `\`${variable.from}\`` : cell(variable.from)} |`,
    ),
  ].join('\n');
}

const SPECIAL_TABLES: Readonly<Record<string, () => string>> = { 'cluster-mode': renderClusterModeTable, 'stack-set-variables': renderStackSetVariablesTable };

const MARKER = /(<!-- config-table: ([a-z-]+) -->\n)(?:[\s\S]*?\n)??(<!-- \/config-table -->)/g;

/** The page with every table between its markers rendered anew; an unknown marker name throws. */
export function renderConfigDocs(page: string): string {
  return page.replace(MARKER, (_match, open: string, name: string, close: string) => `${open}${(SPECIAL_TABLES[name] ?? (() => renderConfigTable(name)))()}\n${close}`);
}

/** The table names the page has markers for, in order. */
export function configTableMarkers(page: string): string[] {
  return [...page.matchAll(MARKER)].map((match) => match[2] ?? '');
}
