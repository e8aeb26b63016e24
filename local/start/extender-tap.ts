// Sits between the local ALB adapter and the extender Lambda and remembers the
// extender's last answers per pod (the nodes it kept or rejected and why, and
// its scores), so the demo can say why a pod landed where it did. It reads the
// exchange; it never changes it.
import type { ALBEvent, ALBResult } from 'aws-lambda';
import { TIE_HEADER } from '../../lambdas/extender/verbs';

export interface ExtenderView {
  /** Nodes the last /filter kept. */
  kept: string[];
  /** node → reason, from the last /filter (FailedNodes and FailedAndUnresolvableNodes). */
  rejected: Record<string, string>;
  /** node → 0..10, from the last /prioritize. */
  scores: Record<string, number>;
  /** Nodes that shared the best score in the last /prioritize (its x-gpu-extender-tie header), the one given 10 first. */
  tied: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string | undefined | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function podKey(args: unknown): string | undefined {
  if (!isRecord(args) || !isRecord(args['Pod']) || !isRecord(args['Pod']['metadata'])) return undefined;
  const { namespace, name } = args['Pod']['metadata'];
  return typeof name === 'string' ? `${typeof namespace === 'string' ? namespace : 'default'}/${name}` : undefined;
}

const stringMap = (value: unknown): Record<string, string> =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

export class ExtenderTap {
  private readonly views = new Map<string, ExtenderView>();

  /** namespace/name → what the extender last said about the pod. */
  view(namespace: string, name: string): ExtenderView | undefined {
    return this.views.get(`${namespace}/${name}`);
  }

  record(event: ALBEvent, result: ALBResult): void {
    if (result.statusCode !== 200) return;
    const body = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    const key = podKey(parse(body));
    if (!key) return;
    const reply = parse(result.body);
    const view = this.views.get(key) ?? { kept: [], rejected: {}, scores: {}, tied: [] };
    const verb = event.path.split('/').pop();
    if (verb === 'filter' && isRecord(reply)) {
      const names = reply['NodeNames'];
      const nodes = isRecord(reply['Nodes']) ? reply['Nodes']['items'] : undefined;
      view.kept = Array.isArray(names)
        ? names.filter((n): n is string => typeof n === 'string')
        : Array.isArray(nodes)
          ? nodes.map((n) => (isRecord(n) && isRecord(n['metadata']) ? String(n['metadata']['name']) : '')).filter(Boolean)
          : [];
      view.rejected = { ...stringMap(reply['FailedNodes']), ...stringMap(reply['FailedAndUnresolvableNodes']) };
      view.scores = {};
      view.tied = [];
    } else if (verb === 'prioritize' && Array.isArray(reply)) {
      const tie = result.headers?.[TIE_HEADER];
      view.tied = typeof tie === 'string' && tie !== '' ? tie.split(',') : [];
      view.scores = Object.fromEntries(
        reply.filter(isRecord).flatMap((p) => (typeof p['Host'] === 'string' && typeof p['Score'] === 'number' ? [[p['Host'], p['Score']]] : [])),
      );
    } else {
      return;
    }
    this.views.set(key, view);
  }
}
