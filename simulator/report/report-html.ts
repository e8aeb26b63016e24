// The what-if report as one self-contained HTML file: inline CSS, no
// script, nothing fetched. Nodes come grouped by GPU model, zone and pool,
// one collapsible group each, so a 500-node cluster reads as a list of
// groups rather than one giant grid.
import type { GpuOutcome } from '../../lambdas/scheduling/cluster-outcome';
import { explanationLines, rankingLines, STRANDED_MEANING } from '../placement-table';
import type { SlotState } from './gpu-slots';
import { countSlots, SLOT_STATES } from './gpu-slots';
import { escapeHtml as e } from './html-text';
import type { NodeGroup, PendingPod, ReportNode, WhatIfReport } from './report-model';
import { REPORT_CSS } from './report-style';

/** Up to this many nodes every group starts open; above it only the groups where pods were placed. */
export const OPEN_ALL_GROUPS_UP_TO = 60;

const SLOT_MEANING: Readonly<Record<SlotState, string>> = {
  bound: 'taken by pods already bound',
  placed: 'taken by the pods placed now',
  free: 'free',
  stranded: 'stranded: free, but the typical pod shapes cannot use it',
};

const PATH_TEXT = {
  fast: "fast path: kube-scheduler's gpu-scheduler profile and the extender modelled in process",
  exact: 'exact path: the real kube-apiserver, kube-scheduler (gpu-scheduler profile) and extender',
} as const;

function slot(state: SlotState, title: string): string {
  return `<span class="slot ${state}" data-state="${state}" title="${e(title)}"></span>`;
}

function slotRow(when: 'before' | 'after', node: ReportNode): string {
  const { slots } = node[when];
  const cells = slots.map((s, i) => slot(s.state, `GPU ${i}: ${SLOT_MEANING[s.state]}${s.pods.length > 0 ? ` (${s.pods.join(', ')})` : ''}${s.freeMilli > 0 && s.freeMilli < 1000 ? `, ${s.freeMilli}/1000 free` : ''}`));
  return `<div class="row" data-when="${when}"><span class="when">${when}</span>${cells.join('')}</div>`;
}

function nodeCard(node: ReportNode): string {
  const gpus = node.after.slots.length;
  const changed = node.placedHere.length > 0;
  const head = `<div class="name">${e(node.name)}${node.instanceType === undefined ? '' : ` <span class="type">${e(node.instanceType)}</span>`}</div>`;
  if (gpus === 0) {
    const why = node.invalid === undefined ? 'no GPUs' : `GPUs not counted: ${node.invalid}`;
    return `<div class="node" data-node="${e(node.name)}" data-gpus="0" data-state="no-gpu">${head}<div class="note">${e(why)}</div></div>`;
  }
  const stranded = node.after.stranded > 0 ? `<div class="note">stranded ${node.before.stranded} → ${node.after.stranded} GPUs</div>` : '';
  const placed = changed ? `<div class="note">placed now: ${e(node.placedHere.join(', '))}</div>` : '';
  return `<div class="node${changed ? ' changed' : ''}" data-node="${e(node.name)}" data-gpus="${gpus}">${head}${slotRow('before', node)}${slotRow('after', node)}${placed}${stranded}</div>`;
}

function countsText(nodes: readonly ReportNode[], when: 'before' | 'after'): string {
  const counts = countSlots(nodes.flatMap((n) => n[when].slots));
  return SLOT_STATES.filter((state) => counts[state] > 0).map((state) => `${counts[state]} ${state}`).join(', ') || 'no GPUs';
}

function groupSection(group: NodeGroup, open: boolean): string {
  const gpus = group.nodes.reduce((sum, n) => sum + n.after.slots.length, 0);
  const placedNow = group.nodes.reduce((sum, n) => sum + n.placedHere.length, 0);
  const title = group.model === '' ? 'nodes without GPUs' : group.model;
  const counts = gpus === 0 ? '' : `${gpus} GPUs; before: ${countsText(group.nodes, 'before')}; after: ${countsText(group.nodes, 'after')}`;
  return [
    `<details class="group" data-model="${e(group.model)}" data-zone="${e(group.zone)}" data-pool="${e(group.pool)}"${open ? ' open' : ''}>`,
    `<summary><strong>${e(title)}</strong> · zone ${e(group.zone)} · pool ${e(group.pool)} · ${group.nodes.length} node${group.nodes.length === 1 ? '' : 's'}${placedNow > 0 ? ` · ${placedNow} pod${placedNow === 1 ? '' : 's'} placed now` : ''}<span class="counts">${e(counts)}</span></summary>`,
    `<div class="grid">${group.nodes.map(nodeCard).join('')}</div>`,
    '</details>',
  ].join('\n');
}

function outcomeRow(name: string, before: GpuOutcome | undefined, after: GpuOutcome | undefined): string {
  const cell = (pick: (o: GpuOutcome) => number): string => {
    const b = before === undefined ? 0 : pick(before);
    const a = after === undefined ? 0 : pick(after);
    return `<td class="num">${b === a ? a : `${b} → ${a}`}</td>`;
  };
  return `<tr><th scope="row">${e(name)}</th>${cell((o) => o.nodes)}${cell((o) => o.allocatable)}${cell((o) => o.allocated)}${cell((o) => o.idle)}${cell((o) => o.stranded)}</tr>`;
}

function outcomeTable(report: WhatIfReport): string {
  const models = [...new Set([...Object.keys(report.before.byModel), ...Object.keys(report.after.byModel)])].sort();
  return [
    '<table class="outcome"><thead><tr><th>GPU model</th><th>nodes</th><th>GPUs</th><th>allocated</th><th>idle</th><th>stranded</th></tr></thead><tbody>',
    ...models.map((model) => outcomeRow(model, report.before.byModel[model], report.after.byModel[model])),
    outcomeRow('all', report.before, report.after),
    '</tbody></table>',
  ].join('\n');
}

function whyNot(pod: PendingPod, totalNodes: number): string {
  const u = pod.unschedulable;
  if (u === undefined) return '';
  const byExtender = u.rejectedByExtender.reduce((sum, r) => sum + r.nodes, 0);
  const filters = u.filteredByScheduler.map((f) => `<li>${f.nodes} × ${e(f.plugin)}: ${e(f.reason)}</li>`).join('');
  const extender = u.rejectedByExtender.map((r) => `<li>${r.nodes} × ${e(r.code)} (e.g. ${e(r.example)})</li>`).join('');
  return [
    `<p>kube-scheduler says: ${e(u.message)}</p>`,
    ...(u.lastMessage === undefined ? [] : [`<p>tried again after a later bind: ${e(u.lastMessage)}</p>`]),
    '<ol class="why">',
    `<li>kube-scheduler's own filters removed ${totalNodes - byExtender} of ${totalNodes} nodes${filters === '' ? '' : `:<ul>${filters}</ul>`}</li>`,
    byExtender === 0 ? '<li>no node was left for the extender to judge</li>' : `<li>the extender rejected the ${byExtender} node(s) left:<ul>${extender}</ul></li>`,
    '</ol>',
  ].join('');
}

function outcomeCell(pod: PendingPod, totalNodes: number): string {
  switch (pod.state) {
    case 'placed': {
      const p = pod.placed;
      if (p === undefined) return '';
      const tie = p.tiedWith.length === 0 ? '' : `<p class="muted">tie with ${e(p.tiedWith.slice(0, 3).join(', '))}${p.tiedWith.length > 3 ? ` and ${p.tiedWith.length - 3} more` : ''}: kube-scheduler picks one at random</p>`;
      const score = p.score === undefined ? '' : ` <span class="muted">(kube-scheduler's total ${p.score})</span>`;
      const why = [...explanationLines(p), ...rankingLines(p)];
      return `→ <strong>${e(p.node)}</strong>${score}${tie}${why.length > 0 ? `<pre>${e(why.join('\n'))}</pre>` : ''}`;
    }
    case 'unschedulable':
      return whyNot(pod, totalNodes);
    case 'undecided':
      return '<p class="muted">no placement and no FailedScheduling read back</p>';
    case 'gated':
      return '<p class="muted">held by schedulingGates: kube-scheduler does not try it</p>';
    case 'other-scheduler':
      return `<p class="muted">pending for ${e(pod.schedulerName)}: not placed here</p>`;
  }
}

function pendingRow(pod: PendingPod, totalNodes: number): string {
  const asks = `${pod.gpus} GPU${pod.gpus === 1 ? '' : 's'}${pod.asks === '' ? '' : `, ${e(pod.asks)}`}`;
  return `<tr data-pod="${e(pod.pod)}" data-state="${pod.state}"><td>${e(pod.pod)}</td><td>${asks}</td><td><span class="state ${pod.state}">${pod.state.replace('-', ' ')}</span></td><td>${outcomeCell(pod, totalNodes)}</td></tr>`;
}

function pendingTable(pods: readonly PendingPod[], totalNodes: number): string {
  if (pods.length === 0) return '<p>No pending pods in the input.</p>';
  return ['<table class="pending"><thead><tr><th>pod</th><th>asks</th><th>state</th><th>where it went, or why not</th></tr></thead><tbody>', ...pods.map((p) => pendingRow(p, totalNodes)), '</tbody></table>'].join('\n');
}

function summaryLine(report: WhatIfReport): string {
  const r = report.result;
  const skipped = report.pending.filter((p) => p.state === 'other-scheduler' || p.state === 'gated').length;
  return `${r.placed.length} placed, ${r.unschedulable.length} unschedulable, ${r.alreadyBound} already bound (counted as load)${skipped > 0 ? `, ${skipped} pending pods skipped (other schedulers or scheduling gates)` : ''}; ${report.nodeCount} nodes.`;
}

/** The report as one HTML document. */
export function renderReportHtml(report: WhatIfReport): string {
  const openAll = report.nodeCount <= OPEN_ALL_GROUPS_UP_TO;
  const legend = SLOT_STATES.map((state) => `<span>${slot(state, SLOT_MEANING[state])}${e(SLOT_MEANING[state])}</span>`).join('');
  const lists = (title: string, items: readonly string[] | undefined): string =>
    items === undefined || items.length === 0 ? '' : `<h2>${e(title)}</h2><ul class="notes">${items.map((n) => `<li>${e(n)}</li>`).join('')}</ul>`;
  const r = report.result;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>What-if placement: ${r.placed.length} placed, ${r.unschedulable.length} unschedulable</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header>
<h1>What-if placement on ${report.nodeCount} nodes</h1>
<p>${e(PATH_TEXT[r.path])}.</p>
<p class="summary">${e(summaryLine(report))}</p>
</header>
<section id="outcome">
<h2>GPUs before → after</h2>
${outcomeTable(report)}
<p class="muted">${e(STRANDED_MEANING)}</p>
</section>
<section id="pending">
<h2>Pending pods</h2>
<p class="muted">The gpu-scheduler's pending pods in its queue order (priority, then input order), each with the node it got or what removed every node: first kube-scheduler's own filters, then the extender's. Then the pods it does not place.</p>
${pendingTable(report.pending, report.nodeCount)}
</section>
<section id="nodes">
<h2>Nodes by GPU model, zone and pool</h2>
<div class="legend">${legend}</div>
${report.groups.map((g) => groupSection(g, openAll || g.nodes.some((n) => n.placedHere.length > 0))).join('\n')}
</section>
${lists('Warnings', r.warnings)}
${lists(`Not modelled on the ${r.path} path`, r.notModelled)}
</body>
</html>
`;
}
