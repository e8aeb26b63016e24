/**
 * A reader of the Prometheus text exposition format (version 0.0.4), the one
 * kube-scheduler's /metrics serves. Small on purpose: we need samples (name,
 * labels, value) of a handful of series, not types, help texts or
 * exemplars, and the npm parsers either pull in a Prometheus client or are
 * unmaintained.
 */
import { errorMessage } from '../common/error-message';

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Thrown on a line that is neither a comment nor a sample; names the line. */
export class PrometheusParseError extends Error {
  override readonly name = 'PrometheusParseError';
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    try {
      samples.push(parseSample(line));
    } catch (error) {
      throw new PrometheusParseError(`line ${index + 1}: ${errorMessage(error)}: ${line.slice(0, 200)}`);
    }
  }
  return samples;
}

function parseSample(line: string): PrometheusSample {
  const name = METRIC_NAME.exec(line)?.[0];
  if (!name) throw new Error('no metric name');
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = parseLabels(rest.slice(1), labels);
  }
  // The value, then an optional timestamp in milliseconds (ignored).
  const [valueText, ...timestamp] = rest.trim().split(/\s+/);
  if (valueText === undefined || valueText === '' || timestamp.length > 1) throw new Error('expected a value and at most a timestamp');
  return { name, labels, value: parseValue(valueText) };
}

/** Fills `labels` from `a="x",b="y"}` and returns what follows the closing brace. */
function parseLabels(input: string, labels: Record<string, string>): string {
  let rest = input;
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith('}')) return rest.slice(1);
    const labelName = LABEL_NAME.exec(rest)?.[0];
    if (!labelName) throw new Error('bad label name');
    rest = rest.slice(labelName.length).trimStart();
    if (!rest.startsWith('="')) throw new Error(`label ${labelName} has no quoted value`);
    let value = '';
    let i = 2;
    for (; i < rest.length && rest[i] !== '"'; i++) {
      const ch = rest[i];
      if (ch !== '\\') {
        value += ch;
        continue;
      }
      const escaped = rest[++i];
      value += escaped === 'n' ? '\n' : (escaped ?? '');
    }
    if (i >= rest.length) throw new Error(`label ${labelName} value is not closed`);
    labels[labelName] = value;
    rest = rest.slice(i + 1).trimStart();
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (!rest.startsWith('}')) throw new Error('expected , or } after a label');
  }
}

function parseValue(text: string): number {
  switch (text) {
    case '+Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    case 'NaN':
      return Number.NaN;
    default: {
      const value = Number(text);
      if (Number.isNaN(value)) throw new Error(`bad value ${text}`);
      return value;
    }
  }
}
