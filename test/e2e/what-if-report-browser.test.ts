import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CLUSTER, exampleReportHtml, TRACE_CHARTS } from '../../charts/charts-cli';
import { withPageOf } from '../../charts/headless-chromium';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// The what-if report and the charts in a real browser: Debian's chromium,
// headless, fresh profile, every network request refused and recorded.
describe('the what-if report in headless chromium', () => {
  it('renders without a console or page error, fetches nothing, shows every node and photographs its node grid', async () => {
    const html = exampleReportHtml();
    await withPageOf(html, async ({ page, errors, requests }) => {
      expect(await page.locator('[data-node]').count()).toBe(EXAMPLE_CLUSTER.nodes);
      const grid = page.locator('#nodes');
      const box = await grid.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(300);
      expect(box?.height ?? 0).toBeGreaterThan(300);
      // A slot is drawn: it has a size and a colour of its own.
      const colour = await page.evaluate('getComputedStyle(document.querySelector(\'[data-when="after"] .slot[data-state="placed"]\')).backgroundColor');
      expect(colour).toMatch(/^rgb\(/);
      expect((await page.locator('[data-when="after"] .slot').first().boundingBox())?.width).toBeGreaterThan(8);
      const png = await grid.screenshot();
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.length).toBeGreaterThan(10_000);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
    });
  });

  it("draws the docs' charts as SVG with every label inside the picture (real fonts, no legend cut at the edge)", async () => {
    const names = [...TRACE_CHARTS.map((c) => c.svg), 'topology-benchmark.svg', 'system-benchmark.svg'];
    const svgs = names.map((name) => readFileSync(path.join(docs, name), 'utf8'));
    await withPageOf('<!doctype html><title>charts</title><body style="margin:0"></body>', async ({ page, errors, requests }) => {
      // The page's own XML parser, then each chart inline at its own size, its texts measured by the browser's layout.
      const drawn = (await page.evaluate(
        `${JSON.stringify(svgs)}.map((text) => {
          const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
          const error = doc.querySelector('parsererror')?.textContent ?? null;
          if (error !== null) return { error, texts: 0, outside: [] };
          const svg = document.importNode(doc.documentElement, true);
          document.body.replaceChildren(svg);
          const box = svg.getBoundingClientRect();
          const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() !== '');
          const outside = texts.filter((t) => { const r = t.getBoundingClientRect(); return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5; }).map((t) => t.textContent);
          return { error, texts: texts.length, outside };
        })`,
      )) as { error: string | null; texts: number; outside: string[] }[];
      expect(drawn.map((chart, i) => ({ chart: names[i], error: chart.error, manyTexts: chart.texts > 10, outside: chart.outside }))).toEqual(
        names.map((chart) => ({ chart, error: null, manyTexts: true, outside: [] })),
      );
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
    });
  });
});
