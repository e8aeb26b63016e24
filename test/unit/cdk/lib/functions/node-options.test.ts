import { describe, expect, it } from 'vitest';
import { functionNodeOptions } from '../../../../../cdk/lib/functions/node-options';

describe('functionNodeOptions', () => {
  it('gives the labeler and the reconciler source maps whatever their memory', () => {
    for (const memory of [128, 512, 4096]) {
      expect(functionNodeOptions('labeler', memory)).toBe('--enable-source-maps');
      expect(functionNodeOptions('reconciler', memory)).toBe('--enable-source-maps');
    }
  });

  it("sizes the extender's young generation by its memory, and keeps V8's default below 1,024 MB", () => {
    expect(functionNodeOptions('extender', 512)).toBe('');
    expect(functionNodeOptions('extender', 1023)).toBe('');
    expect(functionNodeOptions('extender', 1024)).toBe('--max-semi-space-size=32');
    expect(functionNodeOptions('extender', 1535)).toBe('--max-semi-space-size=32');
    expect(functionNodeOptions('extender', 1536)).toBe('--max-semi-space-size=64');
    expect(functionNodeOptions('extender', 10240)).toBe('--max-semi-space-size=64');
  });
});
