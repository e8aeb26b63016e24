import { vi } from 'vitest';

/** What was written to process.stdout since capture began (Powertools writes there through its own Console, and Telemetry directly). */
export interface StdoutCapture {
  /** Everything, as written. */
  text(): string;
  /** The non-empty lines. */
  lines(): string[];
  restore(): void;
}

export function captureStdout(): StdoutCapture {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  const text = () => chunks.join('');
  return {
    text,
    lines: () => text().split('\n').filter((l) => l.trim() !== ''),
    restore: () => spy.mockRestore(),
  };
}

/** What `body` writes to process.stdout; the capture ends with it, whatever happens. */
export function stdoutDuring(body: () => void): Omit<StdoutCapture, 'restore'> {
  const capture = captureStdout();
  try {
    body();
  } finally {
    capture.restore();
  }
  return capture;
}
