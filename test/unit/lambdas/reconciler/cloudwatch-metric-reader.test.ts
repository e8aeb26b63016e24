/**
 * moto_server answers GetMetricData in one page and accepts any number of
 * queries, so CloudWatch's NextToken paging and per-query error statuses are
 * faults it cannot produce: these tests drive the reader with an in-process
 * fake of the client's `send`. The batching against moto itself is covered
 * by test/e2e/reconciler-scale.test.ts.
 */
import type { GetMetricDataCommand, GetMetricDataCommandOutput, MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { cloudWatchMetricReader, MetricReadError } from '../../../../lambdas/reconciler/cloudwatch-metric-reader';

const window = { start: new Date('2026-11-30T09:55:00Z'), end: new Date('2026-11-30T10:00:00Z') };
const queries: MetricDataQuery[] = Array.from({ length: 1201 }, (_, i) => ({ Id: `q${i}` }));

type Send = (command: GetMetricDataCommand) => Promise<Partial<GetMetricDataCommandOutput>>;

function fakeClient(send: Send) {
  const calls: GetMetricDataCommand[] = [];
  return {
    calls,
    client: {
      send: (command: GetMetricDataCommand) => {
        calls.push(command);
        return send(command);
      },
    } as unknown as Parameters<typeof cloudWatchMetricReader>[0],
  };
}

describe('cloudWatchMetricReader', () => {
  it('sends ceil(n / 500) calls of at most 500 queries over the whole window', async () => {
    const { calls, client } = fakeClient(async () => ({ MetricDataResults: [] }));
    await cloudWatchMetricReader(client).latestValues(queries, window);
    expect(calls.map((c) => c.input.MetricDataQueries?.length)).toEqual([500, 500, 201]);
    expect(calls.every((c) => c.input.StartTime === window.start && c.input.EndTime === window.end)).toBe(true);
  });

  it('follows NextToken with the same queries and keeps the most recent value per id', async () => {
    const t = (m: number) => new Date(`2026-11-30T09:5${m}:00Z`);
    const { calls, client } = fakeClient(async (command) =>
      command.input.NextToken === undefined
        ? { MetricDataResults: [{ Id: 'a', Values: [1], Timestamps: [t(6)], StatusCode: 'PartialData' }], NextToken: 'page2' }
        : {
            MetricDataResults: [
              { Id: 'a', Values: [7, 2], Timestamps: [t(8), t(5)], StatusCode: 'Complete' },
              { Id: 'b', Values: [], Timestamps: [], StatusCode: 'Complete' },
            ],
          },
    );
    const values = await cloudWatchMetricReader(client).latestValues([{ Id: 'a' }, { Id: 'b' }], window);
    expect(values).toEqual(new Map([['a', 7]]));
    expect(calls).toHaveLength(2);
    expect(calls[1]?.input.MetricDataQueries).toBe(calls[0]?.input.MetricDataQueries);
  });

  it('fails the read when a query comes back Forbidden or InternalError', async () => {
    const { client } = fakeClient(async () => ({
      MetricDataResults: [{ Id: 'a', StatusCode: 'Forbidden', Messages: [{ Code: 'AccessDenied', Value: 'not allowed' }] }],
    }));
    await expect(cloudWatchMetricReader(client).latestValues([{ Id: 'a' }], window)).rejects.toThrow(MetricReadError);
  });

  it('makes no call for no queries', async () => {
    const { calls, client } = fakeClient(async () => ({}));
    expect(await cloudWatchMetricReader(client).latestValues([], window)).toEqual(new Map());
    expect(calls).toHaveLength(0);
  });
});
