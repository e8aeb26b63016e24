// `npm run bench -- --record`: the cold first answer (scale) and the
// throughput (e2e) of this run, merged into docs/data/system-bench.json, the
// system chart's data (npm run charts), one entry per cluster size.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemFigures } from '../../charts/system-figures';
import { mergeSystemFigures, parseSystemFigures } from '../../charts/system-figures';
import type { ScaleResult } from './scale-bench';
import type { ThroughputResult } from './scheduler-throughput';
import { DEPLOYED_CLIENT_RATE_LIMIT } from './scheduler-throughput';

export const RECORDED_SYSTEM_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/data/system-bench.json');

/** What the chart takes from a scale result. */
export type ScaleFigures = Pick<ScaleResult, 'nodes' | 'pods' | 'vcpu' | 'httpTimeoutSeconds'> & { readonly cold: Pick<ScaleResult['cold'], 'initMs' | 'firstFilterMs'> };

/** What the chart takes from an e2e (throughput) result. */
export type ThroughputFigures = Pick<ThroughputResult, 'nodes' | 'pods'> & {
  readonly comparisons: readonly { readonly clientRateLimit: { readonly qps: number }; readonly without: { readonly podsPerSecond: number }; readonly with: { readonly podsPerSecond: number } }[];
};

/** The chart's figures of one run's scale and e2e results. */
export function systemFiguresOf(run: { readonly scale?: ScaleFigures; readonly e2e?: ThroughputFigures }, measured: string): Partial<SystemFigures> {
  const { scale, e2e } = run;
  return {
    coldFirstAnswer:
      scale === undefined
        ? []
        : [{ nodes: scale.nodes, pods: scale.pods, vcpu: scale.vcpu ?? null, coldMs: Math.round(scale.cold.initMs + scale.cold.firstFilterMs), httpTimeoutMs: scale.httpTimeoutSeconds * 1000, measured }],
    throughput: (e2e?.comparisons ?? []).map((c) => ({
      nodes: e2e?.nodes ?? 0,
      pods: e2e?.pods ?? 0,
      clientLimit: c.clientRateLimit.qps === DEPLOYED_CLIENT_RATE_LIMIT.qps ? 'as deployed' : 'lifted',
      qps: c.clientRateLimit.qps,
      withoutPodsPerSecond: Math.round(c.without.podsPerSecond),
      withPodsPerSecond: Math.round(c.with.podsPerSecond),
      measured,
    })),
  };
}

/** Merges the run's figures into the file (created when missing); returns what the file now holds. */
export function recordSystemFigures(file: string, figures: Partial<SystemFigures>): SystemFigures {
  const old = existsSync(file) ? parseSystemFigures(readFileSync(file, 'utf8'), file) : { coldFirstAnswer: [], throughput: [] };
  const merged = mergeSystemFigures(old, figures);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}
