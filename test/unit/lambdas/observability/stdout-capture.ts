import { vi } from 'vitest';

/**
 * What was written to process.stdout and process.stderr since capture began:
 * Powertools' Logger and Metrics write there through their own Console (WARN
 * and ERROR lines to stderr), and Lambda sends both to the function's log.
 */
export interface StdoutCapture {
  /** Everything, as written. */
  text(): string;
  /** The non-empty lines. */
  lines(): string[];
  /** The lines that are JSON objects (log lines and EMF documents), parsed. */
  records(): Record<string, unknown>[];
  restore(): void;
}

export function captureStdout(): StdoutCapture {
  const chunks: string[] = [];
  const record = (chunk: string | Uint8Array): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(record), vi.spyOn(process.stderr, 'write').mockImplementation(record)];
  const text = () => chunks.join('');
  const lines = () => text().split('\n').filter((l) => l.trim() !== '');
  return {
    text,
    lines,
    records: () => lines().filter((l) => l.trimStart().startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/** What `body` writes to process.stdout and process.stderr; the capture ends with it, whatever happens. */
export function stdoutDuring(body: () => void): Omit<StdoutCapture, 'restore'> {
  const capture = captureStdout();
  try {
    body();
  } finally {
    capture.restore();
  }
  return capture;
}
