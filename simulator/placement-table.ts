import type { NodeScoreExplanation } from '../lambdas/scheduling/explain';
import type { PlacedPod, SimulationResult } from './simulate';

/** Plain-text columns, each as wide as its widest cell, two spaces apart (the trace report's tables too). */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  return rows.map((row) => row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** Human-readable report: placements, then each unschedulable pod with its per-node reasons, then node usage. */
export function formatSimulation(result: SimulationResult): string {
  const out: string[] = [];
  out.push(`${result.placed.length} placed, ${result.unschedulable.length} unschedulable, ${result.alreadyBound} already bound`);
  if (result.placed.length > 0) {
    out.push('', alignColumns([['POD', 'NODE', 'SCORE', 'GPU DEVICES'], ...result.placed.map((p) => [p.pod, p.node, p.score.toFixed(2), p.devices.join(',') || '-'])]));
  }
  const explained = result.placed.filter((p) => p.explanation !== undefined);
  if (explained.length > 0) out.push('', 'WHY (each plugin\'s 0..100 score; the total is their weighted mean):', ...explained.flatMap(explanationLines));
  for (const u of result.unschedulable) {
    out.push('', `UNSCHEDULABLE ${u.pod}: ${u.summary}`);
    for (const r of u.reasons) out.push(`  ${r.node}: ${r.message}`);
  }
  out.push('', alignColumns([['NODE', 'GPUS', 'FREE WHOLE GPUS', 'PODS'], ...result.nodes.map((n) => [n.node, String(n.gpus), String(n.freeWholeGpus), String(n.pods)])]));
  return out.join('\n');
}

function scoreLine(label: string, node: NodeScoreExplanation): string {
  const parts = Object.entries(node.plugins).map(([plugin, score]) => `${plugin} ${score.toFixed(2)}`);
  return `    ${label} ${node.node}: total ${node.total.toFixed(2)} (${parts.join(', ')})`;
}

/** The chosen node's scores per plugin, the runner-up's, and the margin or the word tie. */
export function explanationLines(placed: PlacedPod): string[] {
  const why = placed.explanation;
  if (why === undefined) return [];
  const lines = [`  ${placed.pod} → ${placed.node}`, scoreLine('chosen', why.best)];
  if (why.runnerUp === undefined) return [...lines, '    the only node that fits'];
  lines.push(scoreLine('runner-up', why.runnerUp));
  lines.push(why.tie ? '    tie: equal totals; the earlier node in the input wins (kube-scheduler picks at random among equal totals)' : `    margin ${why.margin.toFixed(2)} points`);
  return lines;
}
