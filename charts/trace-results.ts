// What `npm run bench:trace` records of one workload, and what the trace
// chart is drawn from: each policy's mean allocation curve and the paper's
// published values. Committed copies live in docs/data/, so the docs' charts
// regenerate without the trace itself.
import { z } from 'zod';

const percentOrNull = z.number().nullable();

export const TRACE_RESULTS_SCHEMA = z.object({
  /** The pod list's key, e.g. openb_pod_list_default. */
  workload: z.string().min(1),
  seeds: z.number().int().positive(),
  tieBreak: z.string(),
  /** The command that measured it. */
  command: z.string(),
  /** Day of the measurement, YYYY-MM-DD. */
  measured: z.string(),
  policies: z
    .array(
      z.object({
        policy: z.string().min(1),
        alloc100: percentOrNull,
        alloc130: percentOrNull,
        sd130: percentOrNull,
        /** Mean allocation (%) at each arrived percent, index = percent; null where no seed reached it. */
        curve: z.array(percentOrNull),
      }),
    )
    .min(1),
  /** The paper's published means for this workload (its policy names). */
  published: z.array(z.object({ policy: z.string().min(1), alloc100: z.number(), alloc130: z.number() })),
});

export type TraceResults = z.infer<typeof TRACE_RESULTS_SCHEMA>;

/** Reads a results file's JSON text; the error names the file and the field. */
export function parseTraceResults(text: string, source: string): TraceResults {
  const parsed = TRACE_RESULTS_SCHEMA.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source}: not trace results: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
