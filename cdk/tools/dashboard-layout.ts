/**
 * A picture of a CloudWatch dashboard's layout, drawn from its body as
 * synthesized (widget type, title, x, y, width, height): the docs show where
 * each widget is without anyone drawing it by hand. One grid unit is
 * UNIT_WIDTH × UNIT_HEIGHT pixels; CloudWatch's grid is 24 units wide.
 */

export interface DashboardWidget {
  readonly type: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly properties?: { readonly title?: string; readonly markdown?: string; readonly view?: string };
}

export interface DashboardBody {
  readonly widgets: readonly DashboardWidget[];
}

export const UNIT_WIDTH = 44;
export const UNIT_HEIGHT = 22;
const GRID_COLUMNS = 24;
/** Approximate width of one character of the 12 px sans-serif title. */
const CHAR_WIDTH = 6.6;

const STYLE: Readonly<Record<string, { fill: string; kind: string }>> = {
  singleValue: { fill: '#d9f2e3', kind: 'single value' },
  timeSeries: { fill: '#dbe8f7', kind: 'graph' },
  alarm: { fill: '#f7dede', kind: 'alarm status' },
  text: { fill: '#eeeeee', kind: 'text' },
};

function styleOf(widget: DashboardWidget): { fill: string; kind: string } {
  if (widget.type === 'metric') return STYLE[widget.properties?.view ?? 'timeSeries'] ?? { fill: '#dbe8f7', kind: widget.properties?.view ?? 'metric' };
  return STYLE[widget.type] ?? { fill: '#ffffff', kind: widget.type };
}

/** The widget's title; a text widget's is its first line, without the markdown heading marks. */
export function widgetTitle(widget: DashboardWidget): string {
  if (widget.properties?.title) return widget.properties.title;
  const firstLine = (widget.properties?.markdown ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
  return firstLine.replace(/^#+\s*/, '').replace(/\*\*/g, '').trim();
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function fit(text: string, widthPx: number): string {
  const max = Math.max(3, Math.floor((widthPx - 12) / CHAR_WIDTH));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function dashboardLayoutSvg(body: DashboardBody): string {
  const rows = Math.max(1, ...body.widgets.map((w) => w.y + w.height));
  const width = GRID_COLUMNS * UNIT_WIDTH;
  const height = rows * UNIT_HEIGHT;
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `  <rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  for (const widget of body.widgets) {
    const { fill, kind } = styleOf(widget);
    const x = widget.x * UNIT_WIDTH;
    const y = widget.y * UNIT_HEIGHT;
    const w = widget.width * UNIT_WIDTH;
    const h = widget.height * UNIT_HEIGHT;
    lines.push(
      `  <g data-type="${escapeXml(kind)}">`,
      `    <rect x="${x + 2}" y="${y + 2}" width="${w - 4}" height="${h - 4}" rx="4" fill="${fill}" stroke="#7f8c8d"/>`,
      `    <text x="${x + 8}" y="${y + 17}" font-size="12" font-weight="bold" fill="#222222">${escapeXml(fit(widgetTitle(widget), w))}</text>`,
    );
    if (h >= 2 * UNIT_HEIGHT) lines.push(`    <text x="${x + 8}" y="${y + 32}" font-size="10" fill="#555555">${escapeXml(kind)} · ${widget.width}×${widget.height}</text>`);
    lines.push('  </g>');
  }
  lines.push('</svg>', '');
  return lines.join('\n');
}
