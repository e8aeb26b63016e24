// Reading a rendered chart the way a viewer would: a strict XML check
// (a browser shows nothing for a malformed SVG), then a DOM to query.
import { XMLValidator } from 'fast-xml-parser';
import { DOMParser } from 'linkedom';

export type SvgDocument = ReturnType<DOMParser['parseFromString']>;
type SvgElement = NonNullable<ReturnType<SvgDocument['querySelector']>>;

/** The SVG's DOM; throws with the XML error when the text is not well-formed. */
export function parseSvg(text: string): SvgDocument {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  if (doc.documentElement?.tagName !== 'svg') throw new Error(`the root element is ${String(doc.documentElement?.tagName)}, not svg`);
  return doc;
}

/** The text of every <text> element, in document order. */
export function svgTexts(doc: SvgDocument): string[] {
  return [...doc.querySelectorAll('text')].map((t) => t.textContent ?? '');
}

/** The x offset of an element on the canvas: its own x plus every enclosing translate(). */
function absoluteX(element: SvgElement): number {
  let x = Number(element.getAttribute('x') ?? 0);
  for (let node: SvgElement | null = element; node !== null; node = node.parentElement) {
    const match = /translate\(\s*(-?[\d.]+)/.exec(node.getAttribute('transform') ?? '');
    if (match?.[1] !== undefined) x += Number(match[1]);
  }
  return x;
}

/**
 * Texts whose right end passes the SVG's width, at a generous 0.6 em a
 * character (wider than any sans-serif's average), left-anchored ones only.
 */
export function textsPastRightEdge(doc: SvgDocument): string[] {
  const width = Number(doc.documentElement.getAttribute('width'));
  return [...doc.querySelectorAll('text')]
    .filter((t) => (t.getAttribute('text-anchor') ?? 'start') === 'start')
    .filter((t) => {
      const fontSize = Number(/(\d+(?:\.\d+)?)px/.exec(t.getAttribute('font-size') ?? '')?.[1] ?? t.getAttribute('font-size') ?? 11);
      return absoluteX(t) + 0.6 * fontSize * (t.textContent ?? '').length > width;
    })
    .map((t) => t.textContent ?? '');
}
