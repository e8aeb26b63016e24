import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_CONFIG_DEFAULTS as D } from '../../../../cdk/app-config/app-config-defaults';

// The `@default` tags in app-config.ts are rendered from APP_CONFIG_DEFAULTS
// here and compared as text, so a changed value and a stale tag cannot both
// pass. The rendering is the convention app-config.ts's header describes.

const SOURCE_PATH = fileURLToPath(new URL('../../../../cdk/app-config/app-config.ts', import.meta.url));

interface DocumentedProperty {
  readonly owner: string;
  readonly name: string;
  readonly type: ts.TypeNode | undefined;
  readonly tags: readonly string[];
}

function readDocumentedProperties(): { interfaces: ReadonlySet<string>; properties: readonly DocumentedProperty[] } {
  const file = ts.createSourceFile(SOURCE_PATH, readFileSync(SOURCE_PATH, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Set<string>();
  const properties: DocumentedProperty[] = [];
  for (const statement of file.statements) {
    if (!ts.isInterfaceDeclaration(statement)) continue;
    interfaces.add(statement.name.text);
    for (const member of statement.members) {
      if (!ts.isPropertySignature(member)) throw new Error(`${statement.name.text}: only property signatures are expected`);
      const tags = ts
        .getJSDocTags(member)
        .filter((tag) => tag.tagName.text === 'default')
        .map((tag) => ts.getTextOfJSDocComment(tag.comment) ?? '');
      properties.push({ owner: statement.name.text, name: member.name.getText(file), type: member.type, tags });
    }
  }
  return { interfaces, properties };
}

const { interfaces, properties } = readDocumentedProperties();

/**
 * Where each config type's defaults live in the table. A type used for
 * several settings has one table per setting, and its tags name the setting.
 */
const TABLES: Readonly<Record<string, readonly (readonly [setting: string, table: object])[]>> = {
  AppConfig: [['', D]],
  NewClusterConfig: [['', D.cluster]],
  ExistingClusterConfig: [['', D.cluster.existing]],
  NodeGroupConfig: [
    ['systemNodeGroup', D.cluster.systemNodeGroup],
    ['gpuNodeGroups', D.cluster.eachGpuNodeGroup],
  ],
  NodeTaint: [['', D.cluster.eachTaint]],
  KarpenterConfig: [['', D.cluster.karpenter]],
  KarpenterNodePoolConfig: [['', D.cluster.karpenter.eachNodePool]],
  // Every key of a budget but `nodes` is unset by default, and `nodes` is required.
  DisruptionBudgetConfig: [['', {}]],
  AddonsConfig: [['', D.addons]],
  NvidiaDevicePluginConfig: [['', D.addons.nvidiaDevicePlugin]],
  KueueConfig: [['', D.addons.kueue]],
  CloudWatchObservabilityConfig: [['', D.addons.cloudWatchObservability]],
  SchedulerConfig: [['', D.scheduler]],
  SchedulerResourcesConfig: [['', D.scheduler.resources]],
  SchedulerExtenderConfig: [['', D.scheduler.extender]],
  FunctionConfig: [
    ['extender', D.extender],
    ['labeler', D.labeler],
    ['reconciler', D.reconciler],
  ],
  ExtenderFunctionConfig: [['', D.extender]],
  ScheduledFunctionConfig: [
    ['labeler', D.labeler],
    ['reconciler', D.reconciler],
  ],
  AlarmsConfig: [['', D.alarms]],
  AdmissionConfig: [['', D.admission]],
  MonitoringConfig: [['', D.monitoring]],
  PodMonitorConfig: [['', D.monitoring.podMonitor]],
  GrafanaDashboardConfig: [['', D.monitoring.grafanaDashboard]],
};

/** Table entries that feed a default derived from another setting, with the tag that documents them. */
const DERIVED: Readonly<Record<string, { readonly property: string; readonly tag: string }>> = {
  dashboardNameSuffix: { property: 'AppConfig.dashboardName', tag: `- \`<clusterName>${D.dashboardNameSuffix}\`` },
  // The groups are the default only when managed node groups provide GPU capacity.
  gpuNodeGroups: {
    property: 'NewClusterConfig.gpuNodeGroups',
    tag: `- with gpuCapacity "node-groups": ${JSON.stringify(D.cluster.gpuNodeGroups)}; with "karpenter": []`,
  },
};

const registeredTables = new Set(Object.values(TABLES).flatMap((tables) => tables.map(([, table]) => table)));

function entry(table: object, key: string): { readonly found: boolean; readonly value: unknown } {
  return Object.hasOwn(table, key) ? { found: true, value: (table as Record<string, unknown>)[key] } : { found: false, value: undefined };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property typed by another config type: its keys carry the defaults, it gets a prose tag. */
function isNested(type: ts.TypeNode | undefined): boolean {
  if (type === undefined) return false;
  if (ts.isUnionTypeNode(type)) return type.types.every(isNested);
  return ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && interfaces.has(type.typeName.text);
}

/** A scalar setting whose table entry is an object has one default per case of another setting. */
function isScalar(type: ts.TypeNode | undefined): boolean {
  return type?.kind === ts.SyntaxKind.StringKeyword || type?.kind === ts.SyntaxKind.NumberKeyword;
}

function renderValue(value: unknown, scalar: boolean): string {
  if (scalar && isPlainObject(value)) {
    return Object.entries(value)
      .map(([condition, caseValue]) => `${condition}: ${JSON.stringify(caseValue)}`)
      .join('; ');
  }
  return JSON.stringify(value);
}

function renderSettings(values: readonly (readonly [setting: string, value: unknown])[], scalar: boolean): string {
  const [first] = values;
  if (first === undefined) throw new Error('no table to render from');
  if (values.every(([, value]) => isDeepStrictEqual(value, first[1]))) return renderValue(first[1], scalar);
  if (scalar && values.some(([, value]) => isPlainObject(value))) throw new Error('per-setting and per-case defaults at once have no rendering');
  return values.map(([setting, value]) => `${setting}: ${renderValue(value, scalar)}`).join('; ');
}

/** What the single tag of a property must say, or which prose shape it must have. */
function expectedTag(property: DocumentedProperty): { readonly exact: string } | { readonly prose: true } {
  const qualified = `${property.owner}.${property.name}`;
  const derived = Object.values(DERIVED).find((item) => item.property === qualified);
  if (derived !== undefined) return { exact: derived.tag };
  const tables = TABLES[property.owner] ?? [];
  const entries = tables.map(([setting, table]) => [setting, entry(table, property.name)] as const);
  const found = entries.filter(([, item]) => item.found);
  if (isNested(property.type)) {
    for (const [setting, item] of found) {
      if (!registeredTables.has(item.value as object)) throw new Error(`${qualified}: the ${setting || 'table'} entry is no registered table`);
    }
    return { prose: true };
  }
  if (found.length === 0) return { prose: true };
  if (found.length !== entries.length) {
    const missing = entries.filter(([, item]) => !item.found).map(([setting]) => setting);
    throw new Error(`${qualified}: a default for some settings but not for ${missing.join(', ')}`);
  }
  return { exact: renderSettings(found.map(([setting, item]) => [setting, item.value] as const), isScalar(property.type)) };
}

describe('the @default tags in app-config.ts', () => {
  it('map every config type to its defaults tables', () => {
    expect(Object.keys(TABLES).sort()).toEqual([...interfaces].sort());
  });

  it('are one per property', () => {
    const offenders = properties.filter((property) => property.tags.length !== 1).map((property) => `${property.owner}.${property.name}`);
    expect(offenders).toEqual([]);
  });

  it.each(properties.map((property) => [`${property.owner}.${property.name}`, property] as const))('%s says what the table holds', (_name, property) => {
    const [tag] = property.tags;
    const expected = expectedTag(property);
    if ('exact' in expected) {
      expect(tag).toBe(expected.exact);
    } else {
      // Prose marks "no default value": a tag that looks like a value would be checked against nothing.
      expect(tag).toMatch(/^- \S/);
    }
  });

  it('document every entry of the table', () => {
    const propertyNames = new Map<object, Set<string>>();
    for (const property of properties) {
      for (const [, table] of TABLES[property.owner] ?? []) {
        const names = propertyNames.get(table) ?? new Set<string>();
        names.add(property.name);
        propertyNames.set(table, names);
      }
    }
    const undocumented: string[] = [];
    for (const table of registeredTables) {
      for (const [key, value] of Object.entries(table)) {
        const documented = propertyNames.get(table)?.has(key) === true || registeredTables.has(value as object) || (table === D && key in DERIVED);
        if (!documented) undocumented.push(key);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
