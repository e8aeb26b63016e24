import { describe, expect, it } from 'vitest';
import { NODE_REGISTRATION_MARGIN_MS } from '../../../../lambdas/labeler/config';
import { registrationDeadline } from '../../../../lambdas/labeler/labeler-handler';

describe('registrationDeadline', () => {
  const remaining = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

  it('is the configured wait when the function has time for it and the labelling after it', () => {
    expect(registrationDeadline(1_000, 210_000, remaining(240_000))).toBe(211_000);
  });

  it('ends early enough that the labelling still finishes before the timeout', () => {
    expect(registrationDeadline(1_000, 210_000, remaining(60_000))).toBe(1_000 + 60_000 - NODE_REGISTRATION_MARGIN_MS);
  });

  it('is now when the function is about to time out', () => {
    expect(registrationDeadline(1_000, 210_000, remaining(5_000))).toBe(1_000);
  });
});
