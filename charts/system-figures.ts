// The system-level figures `npm run bench --record` keeps (docs/data/system-bench.json)
// and the system chart is drawn from: a cold extender's first answer and
// kube-scheduler's throughput with and without the extender, each at the
// cluster size it was measured at.
import { z } from 'zod';

const COLD_FIRST_ANSWER = z.object({
  nodes: z.number().int().positive(),
  pods: z.number().int().nonnegative(),
  /** The container's CPU quota in vCPU; null: the whole machine. */
  vcpu: z.number().positive().nullable(),
  /** INIT plus the first NodeNames /filter (the listing happens inside it). */
  coldMs: z.number().nonnegative(),
  httpTimeoutMs: z.number().positive(),
  /** Day measured, YYYY-MM-DD. */
  measured: z.string(),
});

const THROUGHPUT = z.object({
  nodes: z.number().int().positive(),
  pods: z.number().int().positive(),
  /** kube-scheduler's client limit: as deployed (qps 50), or lifted. */
  clientLimit: z.string().min(1),
  qps: z.number().positive(),
  withoutPodsPerSecond: z.number().nonnegative(),
  withPodsPerSecond: z.number().nonnegative(),
  measured: z.string(),
});

export const SYSTEM_FIGURES_SCHEMA = z.object({ coldFirstAnswer: z.array(COLD_FIRST_ANSWER), throughput: z.array(THROUGHPUT) });

export type SystemFigures = z.infer<typeof SYSTEM_FIGURES_SCHEMA>;
export type ColdFirstAnswer = z.infer<typeof COLD_FIRST_ANSWER>;
export type Throughput = z.infer<typeof THROUGHPUT>;

export function parseSystemFigures(text: string, source: string): SystemFigures {
  const parsed = SYSTEM_FIGURES_SCHEMA.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source}: not system benchmark figures: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The figures with new measurements in: one per size and setting, the newest kept, sorted by size. */
export function mergeSystemFigures(old: SystemFigures, add: Partial<SystemFigures>): SystemFigures {
  const coldKey = (c: ColdFirstAnswer): string => `${c.nodes}/${c.pods}/${c.vcpu}`;
  const throughputKey = (t: Throughput): string => `${t.nodes}/${t.pods}/${t.qps}`;
  const merge = <T extends { nodes: number; pods: number }>(a: readonly T[], b: readonly T[], key: (item: T) => string): T[] =>
    [...new Map([...a, ...b].map((item) => [key(item), item])).values()].sort((x, y) => x.nodes - y.nodes || x.pods - y.pods);
  return { coldFirstAnswer: merge(old.coldFirstAnswer, add.coldFirstAnswer ?? [], coldKey), throughput: merge(old.throughput, add.throughput ?? [], throughputKey) };
}
