import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { generateDump } from '../../../../bench/simulate/generated-dump';
import { parseKubeList } from '../../../../simulator/kube-list-file';
import { OPEN_ALL_GROUPS_UP_TO, renderReportHtml } from '../../../../simulator/report/report-html';
import { buildWhatIfReport } from '../../../../simulator/report/report-model';
import { simulate } from '../../../../simulator/simulate';
import { parseSchedPod } from '../../../../simulator/in-tree/pod-spec';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const read = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

function reportDom(nodes: readonly unknown[], pods: readonly unknown[]) {
  const result = simulate(nodes, pods);
  const html = renderReportHtml(buildWhatIfReport(nodes, pods, result));
  return { html, result, doc: new DOMParser().parseFromString(html, 'text/html') };
}

const nameOf = (item: unknown): string => (item as { metadata: { name: string } }).metadata.name;

describe('the what-if report (HTML)', () => {
  it('is one self-contained document: inline style, no script, nothing fetched', () => {
    const { html, doc } = reportDom(parseKubeList(read('nodes.json'), 'n', 'Node'), parseKubeList(read('pods.yaml'), 'p', 'Pod'));
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(doc.querySelectorAll('script, link, img, iframe')).toHaveLength(0);
    expect(doc.querySelectorAll('style')).toHaveLength(1);
    expect(html).not.toMatch(/(src|href)=|url\(|@import/);
  });

  it('shows every node of the input with the state of each GPU before and after, and every pending pod with its state', () => {
    const dump = generateDump({ nodes: 30, pods: 200, pendingShare: 0.05, seed: 3 });
    const { doc, result } = reportDom(dump.nodes, dump.pods);
    const cards = new Map([...doc.querySelectorAll('[data-node]')].map((card) => [card.getAttribute('data-node'), card]));
    expect([...cards.keys()].sort()).toEqual(dump.nodes.map(nameOf).sort());
    for (const node of dump.nodes) {
      const card = cards.get(nameOf(node));
      const gpus = Number((node as { status: { allocatable: Record<string, string> } }).status.allocatable['nvidia.com/gpu'] ?? 0);
      expect(Number(card?.getAttribute('data-gpus'))).toBe(gpus);
      for (const when of ['before', 'after']) {
        const states = [...(card?.querySelectorAll(`[data-when="${when}"] .slot`) ?? [])].map((s) => s.getAttribute('data-state'));
        expect(states).toHaveLength(gpus);
        for (const state of states) expect(['bound', 'placed', 'free', 'stranded']).toContain(state);
        if (when === 'before') expect(states).not.toContain('placed');
      }
    }
    // The slots placed now are exactly the GPUs the placements took.
    const placedSlots = doc.querySelectorAll('[data-when="after"] .slot[data-state="placed"]').length;
    const placedGpus = result.placed.reduce((sum, p) => sum + parseSchedPod(dump.pods.find((pod) => `${(pod as { metadata: { namespace: string } }).metadata.namespace}/${nameOf(pod)}` === p.pod)).requests.get('nvidia.com/gpu')!, 0);
    expect(placedSlots).toBe(placedGpus);

    const rows = new Map([...doc.querySelectorAll('tr[data-pod]')].map((row) => [row.getAttribute('data-pod'), row.getAttribute('data-state')]));
    const pending = dump.pods.map(parseSchedPod).filter((p) => p.nodeName === undefined && !p.finished);
    expect(pending.length).toBeGreaterThan(5);
    expect([...rows.keys()].sort()).toEqual(pending.map((p) => p.key).sort());
    for (const p of result.placed) expect(rows.get(p.pod)).toBe('placed');
    for (const u of result.unschedulable) expect(rows.get(u.pod)).toBe('unschedulable');
    for (const p of pending.filter((pod) => pod.schedulerName !== 'gpu-scheduler')) expect(rows.get(p.key)).toBe('other-scheduler');
  });

  it('names the node each placed pod got, and for an unschedulable one what removed the nodes, kube-scheduler first, then the extender', () => {
    const { doc } = reportDom(parseKubeList(read('nodes.json'), 'n', 'Node'), parseKubeList(read('pods.yaml'), 'p', 'Pod'));
    expect(doc.querySelector('tr[data-pod="ml/train"]')?.textContent).toContain('→ a100-b');
    const huge = doc.querySelector('tr[data-pod="ml/huge"]');
    expect(huge?.getAttribute('data-state')).toBe('unschedulable');
    const steps = [...(huge?.querySelectorAll('ol.why > li') ?? [])].map((li) => li.textContent ?? '');
    expect(steps[0]).toMatch(/kube-scheduler's own filters removed 3 of 3 nodes:.*3 × NodeResourcesFit: Insufficient nvidia\.com\/gpu/s);
    expect(steps[1]).toBe('no node was left for the extender to judge');
    // The outcome numbers, before → after.
    const all = [...doc.querySelectorAll('table.outcome tr')].find((tr) => tr.querySelector('th')?.textContent === 'all');
    expect([...(all?.querySelectorAll('td') ?? [])].map((td) => td.textContent)).toEqual(['3', '20', '5 → 8', '15 → 12', expect.any(String)]);
  });

  it('escapes names from the dump', () => {
    const nodes = [{ metadata: { name: 'n<1>', labels: { 'gpu.nvidia.com/model': 'A100', 'karpenter.sh/nodepool': '"pool"&' } }, status: { allocatable: { cpu: '8', memory: '64Gi', pods: '110', 'nvidia.com/gpu': '1' } } }];
    const { html, doc } = reportDom(nodes, []);
    expect(html).not.toContain('n<1>');
    expect(doc.querySelector('[data-node]')?.getAttribute('data-node')).toBe('n<1>');
    expect(doc.querySelector('details.group')?.getAttribute('data-pool')).toBe('"pool"&');
  });

  it(`opens every group up to ${OPEN_ALL_GROUPS_UP_TO} nodes; above, only the groups where pods were placed`, () => {
    const small = reportDom(parseKubeList(read('nodes.json'), 'n', 'Node'), parseKubeList(read('pods.yaml'), 'p', 'Pod')).doc;
    expect([...small.querySelectorAll('details.group')].every((d) => d.hasAttribute('open'))).toBe(true);
    const dump = generateDump({ nodes: OPEN_ALL_GROUPS_UP_TO * 2, pods: 600, pendingShare: 0.01, seed: 5 });
    const { doc } = reportDom(dump.nodes, dump.pods);
    const groups = [...doc.querySelectorAll('details.group')];
    const withPlacements = groups.filter((g) => g.querySelector('.node.changed') !== null);
    expect(withPlacements.length).toBeGreaterThan(0);
    expect(withPlacements.length).toBeLessThan(groups.length);
    for (const group of groups) expect(group.hasAttribute('open')).toBe(withPlacements.includes(group));
  });
});
