// Plain, aligned text for people: sections, tables, and colour only when
// stdout is a terminal (and NO_COLOR is not set).
import { lineWriter } from './line-writer';

export type Colour = 'bold' | 'dim' | 'green' | 'red' | 'yellow' | 'cyan';

const CODES: Record<Colour, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  green: [32, 39],
  red: [31, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

// Colour codes must not count towards column widths.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[\d+m/g;
const visibleLength = (text: string): number => text.replace(ANSI, '').length;

export class Output {
  constructor(
    private readonly write: (line: string) => void,
    readonly colour: boolean,
  ) {}

  /** Lines to stdout; to stderr once stdout is closed (a pipe reader that exited), so the teardown's lines still show. */
  static forStdout(): Output {
    const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
    return new Output(lineWriter(process.stdout, process.stderr), colour);
  }

  paint(colour: Colour, text: string): string {
    if (!this.colour) return text;
    const [open, close] = CODES[colour];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  }

  line(text = ''): void {
    this.write(text);
  }

  section(title: string): void {
    this.write('');
    this.write(this.paint('bold', `== ${title} ==`));
  }

  /** A progress/status line of the start-up. */
  step(text: string): void {
    this.write(`${this.paint('dim', '·')} ${text}`);
  }

  /** Columns padded to the widest cell; the last column is never padded. */
  table(header: string[], rows: string[][]): void {
    const widths = header.map((h, i) => Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))));
    const format = (cells: string[]): string =>
      '  ' +
      cells
        .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
        .join('  ')
        .trimEnd();
    this.write(this.paint('dim', format(header)));
    for (const row of rows) this.write(format(row));
  }
}
