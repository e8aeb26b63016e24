// What `npm run bench:topology` records, and what the topology chart is
// drawn from: each policy's mean metrics. A committed copy lives in
// docs/data/topology.json.
import { z } from 'zod';

export const TOPOLOGY_RESULTS_SCHEMA = z.object({
  seeds: z.number().int().positive(),
  jobs: z.number().int().positive(),
  load: z.number().positive(),
  command: z.string(),
  /** Day of the measurement, YYYY-MM-DD. */
  measured: z.string(),
  policies: z
    .array(
      z.object({
        policy: z.string().min(1),
        /** How the policy is named in tables and on the chart. */
        label: z.string().min(1),
        metrics: z.object({
          oneBlockPercent: z.number(),
          blocksPerJob: z.number(),
          meanHops: z.number(),
          allocation: z.number(),
          pendingMinutes: z.number(),
          multiNodePendingMinutes: z.number(),
          neverStarted: z.number(),
        }),
      }),
    )
    .min(1),
});

export type TopologyResults = z.infer<typeof TOPOLOGY_RESULTS_SCHEMA>;

export function parseTopologyResults(text: string, source: string): TopologyResults {
  const parsed = TOPOLOGY_RESULTS_SCHEMA.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source}: not topology results: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
