import { describe, expect, it } from 'vitest';
import type { DashboardWidget } from '../../../../cdk/tools/dashboard-layout';
import { dashboardLayoutSvg, UNIT_HEIGHT, UNIT_WIDTH, widgetTitle } from '../../../../cdk/tools/dashboard-layout';

const widgets: DashboardWidget[] = [
  { type: 'text', x: 0, y: 0, width: 24, height: 2, properties: { markdown: '# GPU scheduling — prod\nmore text' } },
  { type: 'metric', x: 0, y: 2, width: 8, height: 4, properties: { view: 'singleValue', title: 'GPUs: allocated %' } },
  { type: 'alarm', x: 8, y: 2, width: 16, height: 4, properties: { title: 'Alarms <all>' } },
  { type: 'metric', x: 0, y: 6, width: 6, height: 6, properties: { view: 'timeSeries', title: 'A very long title that cannot fit into a six unit wide widget at all' } },
];

function rects(svg: string): { x: number; y: number; width: number; height: number }[] {
  return [...svg.matchAll(/<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" rx/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), width: Number(m[3]), height: Number(m[4]) }));
}

describe('dashboardLayoutSvg', () => {
  const svg = dashboardLayoutSvg({ widgets });

  it('draws every widget at its grid position and size', () => {
    expect(rects(svg)).toEqual(
      widgets.map((w) => ({ x: w.x * UNIT_WIDTH + 2, y: w.y * UNIT_HEIGHT + 2, width: w.width * UNIT_WIDTH - 4, height: w.height * UNIT_HEIGHT - 4 })),
    );
    expect(svg).toContain(`height="${12 * UNIT_HEIGHT}"`);
  });

  it('labels each with its title (escaped, shortened to fit) and kind', () => {
    expect(svg).toContain('>GPU scheduling — prod<');
    expect(svg).toContain('>GPUs: allocated %<');
    expect(svg).toContain('>Alarms &lt;all&gt;<');
    expect(svg).toContain('>A very long title that cannot fit int…<');
    expect([...svg.matchAll(/data-type="([^"]+)"/g)].map((m) => m[1])).toEqual(['text', 'single value', 'alarm status', 'graph']);
  });
});

describe('widgetTitle', () => {
  it("takes a text widget's first line without heading or bold marks", () => {
    expect(widgetTitle({ type: 'text', x: 0, y: 0, width: 1, height: 1, properties: { markdown: '\n## **How** to read\nbody' } })).toBe('How to read');
  });
});
