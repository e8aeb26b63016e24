import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reject } from '../../../../lambdas/scheduling/framework';
import { REJECTION_PHRASES, REJECTION_REASONS, rejectionCode, rejectionMessage } from '../../../../lambdas/scheduling/reasons';

describe('REJECTION_PHRASES', () => {
  it('gives each code its own phrase, none holding the ": " that ends it', () => {
    const phrases = REJECTION_REASONS.map((code) => REJECTION_PHRASES[code]);
    expect(new Set(phrases).size).toBe(REJECTION_REASONS.length);
    for (const phrase of phrases) expect(phrase).not.toContain(': ');
  });
});

describe('rejectionMessage and rejectionCode', () => {
  it('every rejection built by the library reads back as its code, whatever the detail', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REJECTION_REASONS), fc.option(fc.string(), { nil: undefined }), fc.boolean(), (code, detail, unresolvable) => {
        const status = reject(code, detail, unresolvable);
        expect(status.code).toBe(code);
        expect(rejectionCode(status.message)).toBe(code);
      }),
    );
  });

  it('reads the bare codes a reply over the size budget carries', () => {
    for (const code of REJECTION_REASONS) expect(rejectionCode(code)).toBe(code);
  });

  it('writes the phrase alone without a detail, and "phrase: detail" with one', () => {
    expect(rejectionMessage('TooManyPods')).toBe('Too many pods');
    expect(rejectionMessage('InsufficientGpus', '')).toBe('Not enough GPUs');
    expect(rejectionMessage('InsufficientGpus', 'requested 2, free 1')).toBe('Not enough GPUs: requested 2, free 1');
  });

  it('knows no other text, even one that starts like a phrase', () => {
    expect(rejectionCode('Not enough GPUs on Tuesdays')).toBeUndefined();
    expect(rejectionCode('Insufficient nvidia.com/gpu')).toBeUndefined();
    expect(rejectionCode('')).toBeUndefined();
  });
});
