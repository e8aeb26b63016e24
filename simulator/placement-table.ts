import type { RankedNode } from '../lambdas/extender/decision';
import type { NodeTotal } from './kube-scheduler-cycle';
import type { NodeUsage } from './node-usage';
import type { PlacedPod, SimulationResult, UnschedulablePod } from './simulate';

/** Plain-text columns, each as wide as its widest cell, two spaces apart (the trace report's tables too). */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  return rows.map((row) => row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** Said once next to the stranded figure, so nobody has to guess what it counts. */
export const STRANDED_MEANING =
  'stranded = the part of idle that pods of the typical shapes (learned from the bound GPU pods) could not use, e.g. 1 free GPU on a node when those pods ask for 2.';

const PATH_LINE = {
  fast: 'fast path: kube-scheduler\'s gpu-scheduler profile and the extender modelled in process (--exact runs the real ones)',
  exact: 'exact path: the real kube-apiserver, kube-scheduler (gpu-scheduler profile) and extender',
} as const;

function skippedLine(result: SimulationResult): string {
  const parts = Object.entries(result.skipped.otherScheduler).map(([scheduler, n]) => `${n} pending for ${scheduler}`);
  if (result.skipped.gated > 0) parts.push(`${result.skipped.gated} held by schedulingGates`);
  if (result.skipped.boundToUnknownNode > 0) parts.push(`${result.skipped.boundToUnknownNode} bound to nodes not in the node list`);
  return parts.length === 0 ? '' : `; skipped (not placed): ${parts.join(', ')}`;
}

function note(p: PlacedPod): string {
  if (p.tiedWith.length === 0) return '';
  const others = p.tiedWith.length > 3 ? `${p.tiedWith.slice(0, 3).join(', ')} and ${p.tiedWith.length - 3} more` : p.tiedWith.join(', ');
  return `tie with ${others}: kube-scheduler picks one at random`;
}

/** What a node is, beside its name: instance type, GPU model, zone and pool (a dash for what is unknown). */
export const NODE_COLUMNS = ['TYPE', 'GPU MODEL', 'ZONE', 'POOL'] as const;

function nodeCells(usage: NodeUsage | undefined): string[] {
  return [usage?.instanceType, usage?.gpuModel, usage?.zone, usage?.pool].map((value) => value ?? '-');
}

/** Human-readable report: placements, the unschedulable with what removed each node, node usage, GPUs and what the path leaves out. */
export function formatSimulation(result: SimulationResult): string {
  const out: string[] = [PATH_LINE[result.path]];
  out.push(`${result.placed.length} placed, ${result.unschedulable.length} unschedulable, ${result.alreadyBound} already bound (any scheduler; counted as load)${skippedLine(result)}`);
  if (result.placed.length > 0) {
    if (result.path === 'exact') out.push('', 'TOTAL is kube-scheduler\'s and not read back on this path; --explain shows the extender\'s ranking.');
    const byName = new Map(result.nodes.map((n) => [n.node, n]));
    out.push(
      '',
      alignColumns([
        ['POD', 'NODE', ...NODE_COLUMNS, 'TOTAL', 'GPU DEVICES', 'NOTE'],
        ...result.placed.map((p) => [p.pod, p.node, ...nodeCells(byName.get(p.node)), p.score === undefined ? (result.path === 'exact' ? '-' : 'only node') : String(p.score), p.devices.join(',') || '-', note(p)]),
      ]),
    );
  }
  const explained = result.placed.filter((p) => p.explanation !== undefined || p.refusedByExtender !== undefined);
  if (explained.length > 0) {
    out.push('', 'WHY (kube-scheduler\'s total: each in-tree score plugin\'s 0..100 × its weight, plus the extender\'s level 0..10 × weight × 10):', ...explained.flatMap(explanationLines));
  }
  const ranked = result.placed.filter((p) => p.extenderRanking !== undefined);
  if (ranked.length > 0) out.push('', 'WHY (the extender\'s ranking in its last /prioritize: its plugins\' 0..100 scores and the level sent):', ...ranked.flatMap(rankingLines));
  for (const u of result.unschedulable) out.push('', ...unschedulableLines(u, result.nodes.length));
  out.push('', alignColumns([['NODE', ...NODE_COLUMNS, 'GPUS', 'FREE WHOLE GPUS', 'PODS'], ...result.nodes.map((n) => [n.node, ...nodeCells(n), String(n.gpus), String(n.freeWholeGpus), String(n.pods)])]));
  const g = result.gpus;
  out.push('', `GPUs after placement: ${g.allocatable} allocatable, ${g.allocated} allocated, ${g.idle} idle, ${g.stranded} stranded`, `  ${STRANDED_MEANING}`);
  if (result.warnings !== undefined) out.push('', 'WARNINGS:', ...result.warnings.map((w) => `  - ${w}`));
  if (result.notModelled.length > 0) out.push('', `Not modelled on the ${result.path} path:`, ...result.notModelled.map((n) => `  - ${n}`));
  return out.join('\n');
}

export function unschedulableLines(u: UnschedulablePod, totalNodes: number): string[] {
  const lines = [`UNSCHEDULABLE ${u.pod}`, `  kube-scheduler says: ${u.message}`];
  // The counts below are from the pod's own turn, as the first message is.
  if (u.lastMessage !== undefined) lines.push(`  tried again after a later bind: ${u.lastMessage}`);
  const byExtender = u.rejectedByExtender.reduce((sum, r) => sum + r.nodes, 0);
  const several = u.filteredByScheduler.length > 1 ? ' (a node short of several resources is listed under each)' : '';
  lines.push(`  1. kube-scheduler's own filters removed ${totalNodes - byExtender} of ${totalNodes} nodes before the extender was asked${u.filteredByScheduler.length > 0 ? `${several}:` : ''}`);
  for (const f of u.filteredByScheduler) lines.push(`     ${f.nodes} × ${f.plugin}: ${f.reason}`);
  if (byExtender === 0) return [...lines, '  2. no node was left for the extender to judge'];
  lines.push(`  2. the extender rejected the ${byExtender} node(s) left:`);
  for (const r of u.rejectedByExtender) lines.push(`     ${r.nodes} × ${r.code} (e.g. ${r.example})`);
  return lines;
}

function pointsLine(label: string, node: NodeTotal): string {
  const parts = Object.entries(node.points).map(([plugin, points]) => `${plugin} ${points}`);
  const extender = Object.entries(node.extenderPlugins).map(([plugin, score]) => `${plugin} ${score.toFixed(2)}`);
  return `    ${label} ${node.node}: total ${node.total} (${parts.join(', ')}; the extender's plugins 0..100: ${extender.join(', ')})`;
}

function rankedLine(label: string, node: RankedNode): string {
  const parts = Object.entries(node.plugins).map(([plugin, score]) => `${plugin} ${score.toFixed(2)}`);
  return `    ${label} ${node.node}: level ${node.level}, total ${node.total.toFixed(2)} (${parts.join(', ')})`;
}

/** --exact --explain: the extender's best node and runner-up (kube-scheduler then adds its own scores). */
export function rankingLines(placed: PlacedPod): string[] {
  const ranking = placed.extenderRanking;
  if (ranking === undefined) return [];
  const lines = [`  ${placed.pod} → ${placed.node}`, rankedLine("extender's best", ranking.best)];
  if (ranking.runnerUp !== undefined) lines.push(rankedLine('runner-up', ranking.runnerUp));
  return lines;
}

/** The chosen node's points per plugin, the runner-up's, and the margin or the word tie. */
export function explanationLines(placed: PlacedPod): string[] {
  const why = placed.explanation;
  // What the extender refused, e.g. a Capacity Block ending before the pod's expected runtime is over.
  const refused = (placed.refusedByExtender ?? []).map((r) => `    refused by the extender: ${r.nodes} × ${r.code} (e.g. ${r.example})`);
  if (why === undefined) return refused.length === 0 ? [] : [`  ${placed.pod} → ${placed.node}`, '    the only node that fits', ...refused];
  const lines = [`  ${placed.pod} → ${placed.node}`, pointsLine('chosen', why.best)];
  if (why.runnerUp === undefined) return [...lines, '    the only node that fits', ...refused];
  lines.push(pointsLine('runner-up', why.runnerUp));
  lines.push(why.margin === 0 ? '    tie: equal totals; kube-scheduler picks at random among them (here: the first in the input)' : `    margin ${why.margin} points`);
  return [...lines, ...refused];
}
