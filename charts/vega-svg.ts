// Every chart of the project is a Vega-Lite spec rendered here to SVG, in
// process and offline: Vega's own scenegraph-to-SVG renderer, no canvas, no
// browser, no font file (text is set in a generic family, and Vega sizes
// legends and labels from its own text-width estimate, which errs wide, so
// they fit the picture it computes).
import { None, parse, View, type Loader } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** The look every chart shares. */
export const CHART_CONFIG = {
  font: 'sans-serif',
  background: 'white',
  padding: 8,
  view: { stroke: '#ddd' },
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#eee' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', labelLimit: 0, titleLimit: 0 },
  title: { fontSize: 14, fontWeight: 'normal', anchor: 'start' },
  header: { labelFontSize: 12, titleFontSize: 12 },
} as const;

/**
 * A loader that loads nothing and remembers what it was asked for: a chart
 * that names a URL or a file fails (Vega itself would log the refusal and
 * draw the chart without that data) instead of reaching out.
 */
function offlineLoader(refused: string[]): Loader {
  const refuse = (what: string): Promise<never> => {
    refused.push(what);
    return Promise.reject(new Error(`refused ${what}`));
  };
  return { load: (uri) => refuse(uri), sanitize: (uri) => refuse(uri), http: (uri) => refuse(uri), file: (filename) => refuse(filename) };
}

/** The spec with the shared look under its own config (the spec's settings win). */
export function withChartConfig(spec: TopLevelSpec): TopLevelSpec {
  return { ...spec, config: { ...CHART_CONFIG, ...spec.config } } as TopLevelSpec;
}

/** Renders a Vega-Lite spec (data inline) to one SVG document. */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const refused: string[] = [];
  const view = new View(parse(compile(withChartConfig(spec)).spec), { renderer: 'none', loader: offlineLoader(refused), logLevel: None });
  try {
    const svg = await view.toSVG();
    if (refused.length > 0) throw new Error(`charts load nothing (their data is inline): refused ${refused.join(', ')}`);
    return `${svg}\n`;
  } finally {
    view.finalize();
  }
}
