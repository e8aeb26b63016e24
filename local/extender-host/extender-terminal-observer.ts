// `npm run extender` on a terminal: one readable line per request. The
// structured decision log and the EMF metric lines (one, plus one per rejection reason) are
// CloudWatch's input and noise to a person; Lambda and any local run whose
// stdout is not a terminal (a file, a pipe, a test) keep them unchanged.
import type { ExtenderVerb } from '../../lambdas/observability/metric-catalog';
import type { Telemetry } from '../../lambdas/observability/telemetry';
import type { DecisionSummary } from '../../lambdas/extender/decision';
import type { ExtenderObserver } from '../../lambdas/extender/observer';
import { telemetryObserver } from '../../lambdas/extender/observer';

const clock = (at: Date): string => at.toISOString().slice(11, 19);
const duration = (ms: number): string => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

/** e.g. `09:25:30 filter ml/llm-ft-0 [Nodes]: 2 of 4 nodes fit (6.9 ms); GPU model mismatch: … (1 node)` */
export function formatDecision(verb: ExtenderVerb, summary: DecisionSummary, durationMs: number, at: Date): string {
  const what = verb === 'preempt' ? 'candidates' : 'nodes';
  const head = `${clock(at)} ${verb} ${summary.pod} [${summary.mode}]: ${summary.kept} of ${summary.candidates} ${what} fit (${duration(durationMs)})`;
  return summary.topReasons.length === 0 ? head : `${head}; ${summary.topReasons.join('; ')}`;
}

export function formatFailure(verb: ExtenderVerb | undefined, status: number, message: string, durationMs: number, at: Date): string {
  return `${clock(at)} ${verb ?? 'request'} answered ${status} (${duration(durationMs)}): ${message}`;
}

function formatDetails(details: Readonly<Record<string, unknown>> | undefined): string {
  const entries = Object.entries(details ?? {});
  return entries.length === 0 ? '' : ` (${entries.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')})`;
}

export function terminalObserver(write: (line: string) => void, now: () => Date = () => new Date()): ExtenderObserver {
  return {
    decision: (verb, summary, durationMs) => write(formatDecision(verb, summary, durationMs, now())),
    failure: (verb, status, message, durationMs) => write(formatFailure(verb, status, message, durationMs, now())),
    warn: (message, details) => write(`${clock(now())} warning: ${message}${formatDetails(details)}`),
  };
}

/** How the local server reports: readable lines on a terminal, otherwise what the Lambda writes (JSON logs and EMF). */
export function localServerObserver(stdoutIsTerminal: boolean, telemetry: Telemetry, write: (line: string) => void): ExtenderObserver {
  return stdoutIsTerminal ? terminalObserver(write) : telemetryObserver(telemetry);
}
