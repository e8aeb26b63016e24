// Entry of a benchmark child process (see child-process.ts).
import type { ChildJob } from './child-process';
import type { LatencyCase } from './extender-latency';
import { measureLatency } from './extender-latency';
import type { MemoryCase } from './extender-memory';
import { measureMemory } from './extender-memory';
import { errorStack } from '../../lambdas/common/error-message';

async function run(job: ChildJob): Promise<unknown> {
  switch (job.kind) {
    case 'extender-latency':
      return measureLatency(job.input as LatencyCase);
    case 'extender-memory':
      return measureMemory(job.input as MemoryCase);
  }
}

const send = (message: unknown): Promise<void> => new Promise((resolve) => process.send?.(message, () => resolve()) ?? resolve());

run(JSON.parse(process.argv[2] ?? '{}') as ChildJob)
  .then((value) => send({ ok: true, value }))
  .catch((error: unknown) => send({ ok: false, error: errorStack(error) }))
  .finally(() => process.exit(0));
