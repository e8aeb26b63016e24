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

/**
 * The instance belongs to this cluster but its node has not registered yet
 * (it does so tens of seconds to minutes after `running`). Thrown out of the
 * handler on purpose: Lambda's async retry re-delivers the event with backoff,
 * then the dead-letter queue keeps it; the scheduled reconcile catches the rest.
 */
export class NodeNotRegisteredError extends LabelerError {
  override readonly name = 'NodeNotRegisteredError';
  constructor(readonly instanceId: string) {
    super('NodeNotRegistered', `instance ${instanceId} is running but no node has registered for it yet; retry later`);
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
