import { readFileSync } from 'node:fs';
import { typicalShapes } from '../../lambdas/scheduling/fragmentation/workload-shapes';
import type { WorkloadShape } from '../../lambdas/scheduling/fragmentation/workload-shapes';
import { createRng } from './seeded-rng';
import type { TraceNode, TracePod } from './trace-csv';
import { parseNodeCsv, parsePodCsv } from './trace-csv';
import type { PolicyName } from './trace-policies';
import { createPolicyProfile, deployedPathOf } from './trace-policies';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import type { TieBreak } from './trace-simulation';
import { runTrace } from './trace-simulation';
import { buildArrivalSequence } from './trace-workload';

export const TARGET_RATIO = 1.3;
export const MAX_PERCENT = 130;

export interface TraceInput {
  readonly nodes: readonly TraceNode[];
  readonly pods: readonly TracePod[];
  readonly shapes: readonly WorkloadShape[];
  readonly capacityGpuMilli: number;
}

export function loadTraceInput(nodesPath: string, podsPath: string): TraceInput {
  const nodes = parseNodeCsv(readFileSync(nodesPath, 'utf8'), nodesPath);
  const pods = parsePodCsv(readFileSync(podsPath, 'utf8'), podsPath);
  const capacityGpuMilli = nodes.reduce((sum, n) => sum + n.gpuCount * 1000, 0);
  if (capacityGpuMilli === 0) throw new Error(`${nodesPath}: the cluster has no GPUs`);
  // The paper's typical pods: the original workload's shapes covering 95 % of pods.
  const shapes = typicalShapes(pods.map((p) => ({ cpuMilli: p.cpuMilli, gpuCount: p.numGpu, gpuMilli: p.gpuMilli, gpuModels: p.gpuSpec })));
  return { nodes, pods, shapes, capacityGpuMilli };
}

export interface SeedResult {
  readonly policy: PolicyName;
  readonly seed: number;
  /** [arrived percent, allocation percent] pairs. */
  readonly checkpoints: readonly (readonly [number, number])[];
  readonly placed: number;
  readonly unschedulable: number;
  readonly seconds: number;
}

/**
 * One seed of one policy. The seed drives, in this order: the arrival
 * sequence, the node order, then the policy's own random choices — so every
 * policy sees the same pods in the same order on the same node order.
 */
export function runSeed(input: TraceInput, policy: PolicyName, seed: number, tieBreak: TieBreak = 'order'): SeedResult {
  const started = performance.now();
  const rng = createRng(seed);
  const arrivals = buildArrivalSequence(input.pods, rng, { targetRatio: TARGET_RATIO, capacityGpuMilli: input.capacityGpuMilli });
  const profile = createPolicyProfile(policy, { random: rng.next, shapes: input.shapes });
  const deployed = deployedPathOf(policy);
  const kubeScheduler = deployed === undefined ? undefined : { extenderWeight: APP_CONFIG_DEFAULTS.scheduler.extender.weight, ...deployed };
  const result = runTrace(input.nodes, arrivals, profile, rng, MAX_PERCENT, tieBreak, kubeScheduler);
  return {
    policy,
    seed,
    checkpoints: [...result.checkpoints.entries()],
    placed: result.placed,
    unschedulable: result.unschedulable,
    seconds: (performance.now() - started) / 1000,
  };
}
