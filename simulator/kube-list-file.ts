import { parseAllDocuments } from 'yaml';
import { isRecord } from '../lambdas/scheduling/kube-json';

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * The items of a Kubernetes list as `kubectl get -o json|yaml` prints it
 * (`{kind: NodeList|PodList|List, items: [...]}`), or a bare array, a single
 * object, or several YAML documents. JSON is YAML, so one parser reads both.
 */
export function parseKubeList(text: string, source: string, expectedKind: 'Node' | 'Pod'): unknown[] {
  if (text.length > MAX_INPUT_BYTES) throw new InputError(`${source}: input is larger than ${MAX_INPUT_BYTES} bytes`);
  const documents = parseAllDocuments(text);
  const docs = Array.isArray(documents) ? documents : [documents];
  const items: unknown[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem !== undefined) throw new InputError(`${source}: not valid JSON or YAML: ${problem.message.split('\n')[0] ?? ''}`);
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) continue;
    items.push(...listItems(value, source));
  }
  items.forEach((item, index) => checkItem(item, index, source, expectedKind));
  return items;
}

function listItems(value: unknown, source: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (!isRecord(value)) throw new InputError(`${source}: expected a Kubernetes list or object, got ${typeof value}`);
  if ('items' in value) {
    if (!Array.isArray(value.items)) throw new InputError(`${source}: "items" must be an array`);
    return value.items;
  }
  return [value];
}

function checkItem(item: unknown, index: number, source: string, expectedKind: 'Node' | 'Pod'): void {
  if (!isRecord(item)) throw new InputError(`${source}: item ${index} is not an object`);
  if (item.kind !== undefined && item.kind !== expectedKind) {
    throw new InputError(`${source}: item ${index} is a ${String(item.kind)}, expected ${expectedKind}`);
  }
  const metadata = item.metadata;
  if (!isRecord(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    throw new InputError(`${source}: item ${index} has no metadata.name`);
  }
}
