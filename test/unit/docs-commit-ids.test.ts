import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The pages describe the product, not the repository's history: a measurement
// is dated, a change is named by what it did, never by a commit id (a word of
// 7 to 40 hexadecimal digits, with a digit and a letter, standing alone; AWS
// ids such as vpc-0123abcd are joined to their prefix and are not words here).
const root = join(import.meta.dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const HEX_WORD = /(?<![\w./:@-])[0-9a-f]{7,40}(?![\w/-])/g;

function commitLikeWords(text: string): string[] {
  return [...text.matchAll(HEX_WORD)].map((m) => m[0]).filter((word) => /[0-9]/.test(word) && /[a-f]/.test(word));
}

describe('README.md and docs/', () => {
  it('the rule catches a commit id and leaves AWS ids and digests alone', () => {
    expect(commitLikeWords('at `82ec13a` and before 4ba6d50, (fc56198)')).toEqual(['82ec13a', '4ba6d50', 'fc56198']);
    expect(commitLikeWords('vpc-0123456789abcdef0 sha256:0123456789abcdef a 1,769 MB deadbeef')).toEqual([]);
  });

  it.each(PAGES)('%s names no commit', (page) => {
    expect(commitLikeWords(readFileSync(join(root, page), 'utf8'))).toEqual([]);
  });
});
