import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../../../../lambdas/observability/emf-documents';
import { emfDocuments } from '../../../../lambdas/observability/emf-documents';

const count = (name: string, value: number, dimensions: Record<string, string> = {}): MetricRecord => ({ name, unit: 'Count', value, dimensions });

describe('emfDocuments', () => {
  it('is nothing for no records', () => {
    expect(emfDocuments('Ns', 'svc', [], 1)).toEqual([]);
  });

  it('puts undimensioned metrics in one directive keyed by service alone', () => {
    expect(emfDocuments('Ns', 'svc', [count('A', 1), count('B', 2)], 42)).toEqual([
      { _aws: { Timestamp: 42, CloudWatchMetrics: [{ Namespace: 'Ns', Dimensions: [['service']], Metrics: [{ Name: 'A', Unit: 'Count' }, { Name: 'B', Unit: 'Count' }] }] }, service: 'svc', A: 1, B: 2 },
    ]);
  });

  it('a second value of the same metric and dimensions is a second data point, not an overwrite', () => {
    const documents = emfDocuments('Ns', 'svc', [count('A', 1), count('A', 2)], 0);
    expect(documents.map((d) => d.A)).toEqual([1, 2]);
  });

  it('a record joins the first document that agrees on its dimensions', () => {
    const documents = emfDocuments('Ns', 'svc', [count('R', 1, { Reason: 'x' }), count('R', 2, { Reason: 'y' }), count('V', 3, { Verb: 'filter' })], 0);
    expect(documents.map((d) => [d.Reason, d.R, d.Verb, d.V])).toEqual([
      ['x', 1, 'filter', 3],
      ['y', 2, undefined, undefined],
    ]);
  });

  it('keeps every document under CloudWatch’s 100 metrics', () => {
    const records = Array.from({ length: 150 }, (_, i) => count(`M${i}`, i));
    const documents = emfDocuments('Ns', 'svc', records, 0);
    const sizes = documents.map((d) => (d._aws as { CloudWatchMetrics: { Metrics: unknown[] }[] }).CloudWatchMetrics[0]!.Metrics.length);
    expect(sizes).toEqual([100, 50]);
  });
});
