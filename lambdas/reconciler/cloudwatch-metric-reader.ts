import type { CloudWatchClient, MetricDataQuery, MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { chunk, MAX_QUERIES_PER_CALL } from './metric-queries';

export interface TimeWindow {
  readonly start: Date;
  readonly end: Date;
}

/** Reads the most recent value of each query id; ids with no datapoint are absent. */
export interface MetricReader {
  latestValues(queries: readonly MetricDataQuery[], window: TimeWindow): Promise<Map<string, number>>;
}

export class MetricReadError extends Error {
  override readonly name = 'MetricReadError';
}

/**
 * GetMetricData in as few calls as the 500-query limit allows (one per chunk,
 * plus NextToken pages only when CloudWatch splits a response).
 */
export function cloudWatchMetricReader(client: Pick<CloudWatchClient, 'send'>): MetricReader {
  return {
    async latestValues(queries, window) {
      const latest = new Map<string, { value: number; at: number }>();
      for (const batch of chunk(queries, MAX_QUERIES_PER_CALL)) {
        let nextToken: string | undefined;
        do {
          const response = await client.send(
            new GetMetricDataCommand({
              MetricDataQueries: batch,
              StartTime: window.start,
              EndTime: window.end,
              ScanBy: 'TimestampDescending',
              NextToken: nextToken,
            }),
          );
          for (const result of response.MetricDataResults ?? []) collectLatest(result, latest);
          nextToken = response.NextToken;
        } while (nextToken);
      }
      return new Map([...latest].map(([id, { value }]) => [id, value]));
    },
  };
}

function collectLatest(result: MetricDataResult, latest: Map<string, { value: number; at: number }>): void {
  if (result.StatusCode === 'Forbidden' || result.StatusCode === 'InternalError') {
    throw new MetricReadError(
      `GetMetricData query ${result.Id ?? '?'} failed with ${result.StatusCode}: ${(result.Messages ?? []).map((m) => m.Value).join('; ')}`,
    );
  }
  const id = result.Id;
  if (id === undefined) return;
  const values = result.Values ?? [];
  const timestamps = result.Timestamps ?? [];
  values.forEach((value, i) => {
    const at = timestamps[i]?.getTime() ?? Number.NEGATIVE_INFINITY;
    const known = latest.get(id);
    if (known === undefined || at > known.at) latest.set(id, { value, at });
  });
}
