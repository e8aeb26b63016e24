import type { SimulationResult } from './simulate';

function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  return rows.map((row) => row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** Human-readable report: placements, then each unschedulable pod with its per-node reasons, then node usage. */
export function formatSimulation(result: SimulationResult): string {
  const out: string[] = [];
  out.push(`${result.placed.length} placed, ${result.unschedulable.length} unschedulable, ${result.alreadyBound} already bound`);
  if (result.placed.length > 0) {
    out.push('', table([['POD', 'NODE', 'SCORE', 'GPU DEVICES'], ...result.placed.map((p) => [p.pod, p.node, p.score.toFixed(2), p.devices.join(',') || '-'])]));
  }
  for (const u of result.unschedulable) {
    out.push('', `UNSCHEDULABLE ${u.pod}: ${u.summary}`);
    for (const r of u.reasons) out.push(`  ${r.node}: ${r.message}`);
  }
  out.push('', table([['NODE', 'GPUS', 'FREE WHOLE GPUS', 'PODS'], ...result.nodes.map((n) => [n.node, String(n.gpus), String(n.freeWholeGpus), String(n.pods)])]));
  return out.join('\n');
}
