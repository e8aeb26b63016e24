import type { LABELER_ERROR_KINDS } from '../observability/metric-catalog';
import { errorMessage } from '../common/error-message';

export type LabelerErrorKind = (typeof LABELER_ERROR_KINDS)[number];

/** A failure tagged with where it happened, for the LabelerErrors metric. */
export class LabelerError extends Error {
  override readonly name: string = 'LabelerError';
  constructor(
    readonly kind: LabelerErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Runs one step and tags any failure with its kind (errors already tagged keep theirs). */
export async function step<T>(kind: LabelerErrorKind, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof LabelerError) throw error;
    throw new LabelerError(kind, `${what}: ${errorMessage(error)}`, { cause: error });
  }
}

export function errorKind(error: unknown): LabelerErrorKind {
  return error instanceof LabelerError ? error.kind : 'Unknown';
}
