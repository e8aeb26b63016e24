import { parentPort, workerData } from 'node:worker_threads';
import type { PolicyName } from './trace-policies';
import type { TraceInput } from './trace-job';
import { loadTraceInput, runSeed } from './trace-job';
import type { TieBreak } from './trace-simulation';
import { errorStack } from '../../lambdas/common/error-message';

/** Worker thread: loads the trace once, then runs (policy, seed) jobs sent by the CLI. */
export interface WorkerJob {
  readonly policy: PolicyName;
  readonly seed: number;
}

interface WorkerInit {
  readonly nodesPath: string;
  readonly podsPath: string;
  readonly tieBreak: TieBreak;
}

const port = parentPort;
if (port === null) throw new Error('trace-worker must run in a worker thread');
const init = workerData as WorkerInit;
let input: TraceInput | undefined;
port.on('message', (job: WorkerJob) => {
  try {
    input ??= loadTraceInput(init.nodesPath, init.podsPath);
    port.postMessage({ ok: true, result: runSeed(input, job.policy, job.seed, init.tieBreak) });
  } catch (error) {
    port.postMessage({ ok: false, error: errorStack(error) });
  }
});
