import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_TABLES, configTableMarkers, renderConfigDocs, renderConfigTable } from '../../../../cdk/app-config/config-docs';
import { CONFIG_DOCS_FILE } from '../../../../cdk/tools/config-docs-cli';

const page = readFileSync(CONFIG_DOCS_FILE, 'utf8');

describe('docs/configuration.md', () => {
  it('has the tables the config schema renders (run `npm run config:docs` after changing a setting)', () => {
    expect(renderConfigDocs(page)).toBe(page);
  });

  it('has a marker for every table, each once', () => {
    const markers = configTableMarkers(page);
    expect(markers.sort()).toEqual([...Object.keys(CONFIG_TABLES), 'cluster-mode', 'stack-set-variables'].sort());
  });

  it('would fail on a stale table: a changed default is rendered back', () => {
    const stale = page.replace('| `replicas` | `2` |', '| `replicas` | `3` |');
    expect(stale).not.toBe(page);
    expect(renderConfigDocs(stale)).toBe(page);
  });
});

describe('the config schema', () => {
  it('gives every setting its meaning, what is allowed and its default', () => {
    const rows = Object.keys(CONFIG_TABLES).flatMap((name) => renderConfigTable(name).split('\n').slice(2));
    expect(rows.length).toBeGreaterThan(100);
    const cells = rows.map((row) => row.split(/(?<!\\)\|/).slice(1, -1).map((part) => part.trim()));
    expect(cells.filter((row) => row.length !== 4 || row.some((part) => part === '')).map((row) => row[0])).toEqual([]);
  });
});
