import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { appConfigSchema } from '../../cdk/app-config/app-config-schema';
import { parseAppConfig } from '../../cdk/app-config/parse-app-config';
import { objectOf } from '../../cdk/app-config/schema-walk';
import { synthesize, type Synthesized } from './cdk/support/synthesize';

// Every configuration of the CDK app shown in README.md and docs/*.md works as
// written. The rule for writers (docs/configuration.md, "Config snippets"):
//   ```yaml config         a config file, or the part of one a page is about: validated
//   ```yaml config synth   a whole config meant to deploy as is: validated and synthesized
// (`json` likewise). A yaml or json block whose top-level keys are all keys of
// the config and that is not marked fails this test, so no config escapes it.
const root = join(import.meta.dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const FENCE = /^```(yaml|json)([^\n]*)\n([\s\S]*?)^```$/gm;
const ROOT_KEYS = new Set(Object.keys(objectOf(appConfigSchema, undefined)?.shape ?? {}));

interface Block {
  readonly where: string;
  readonly marks: readonly string[];
  readonly text: string;
}

function blocks(): Block[] {
  return PAGES.flatMap((page) => {
    const source = readFileSync(join(root, page), 'utf8');
    return [...source.matchAll(FENCE)].map((match) => {
      const line = source.slice(0, match.index).split('\n').length;
      return { where: `${page}:${line}`, marks: (match[2] ?? '').trim().split(/\s+/).filter((m) => m !== ''), text: match[3] ?? '' };
    });
  });
}

/** A block that reads as a config of the app: a mapping of config keys only (not a Kubernetes object). */
function looksLikeConfig(text: string): boolean {
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => ROOT_KEYS.has(key));
}

const all = blocks();
const configs = all.filter((b) => b.marks.includes('config'));
const synthesized: Synthesized[] = [];

afterAll(() => {
  for (const s of synthesized) rmSync(s.outdir, { recursive: true, force: true });
});

describe('config snippets in README.md and docs/', () => {
  it('finds the marked ones, and every block that reads as a config is marked', () => {
    expect(ROOT_KEYS.has('cluster') && ROOT_KEYS.has('scheduler')).toBe(true);
    expect(configs.length).toBeGreaterThanOrEqual(5);
    expect(all.filter((b) => !b.marks.includes('config') && looksLikeConfig(b.text)).map((b) => b.where)).toEqual([]);
    expect(configs.filter((b) => b.marks.some((m) => m !== 'config' && m !== 'synth')).map((b) => `${b.where}: ${b.marks.join(' ')}`)).toEqual([]);
  });

  it.each(configs.map((b) => [b.where, b] as const))('%s is a valid configuration', (_where, block) => {
    expect(() => parseAppConfig(parse(block.text) as unknown)).not.toThrow();
  });

  it('the opening configs of the existing-cluster pages are meant to deploy as they are', () => {
    const synth = configs.filter((b) => b.marks.includes('synth')).map((b) => b.where.split(':')[0]);
    expect(synth).toEqual(expect.arrayContaining(['docs/existing-cluster-karpenter.md', 'docs/auto-mode.md']));
  });

  it('the existing-cluster page opens with the example file, word for word', () => {
    const opening = configs.find((b) => b.where.startsWith('docs/existing-cluster-karpenter.md:'));
    expect(opening?.text).toBe(readFileSync(join(root, 'cdk/app-config/example-existing-cluster.yaml'), 'utf8'));
  });

  it.each(configs.filter((b) => b.marks.includes('synth')).map((b) => [b.where, b] as const))('%s synthesizes, as cdk synth runs it', (_where, block) => {
    const result = synthesize(parse(block.text) as unknown);
    synthesized.push(result);
    expect(result.json.Outputs?.ClusterName).toBeDefined();
    expect(Object.keys(result.json.Resources).length).toBeGreaterThan(10);
  }, 600_000);
});
