import { readFileSync } from 'node:fs';
import type { ClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { TtlClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import type { DecisionSummary } from '../../../../lambdas/extender/decision';
import type { ExtenderObserver } from '../../../../lambdas/extender/observer';
import type { Router, RouterResponse } from '../../../../lambdas/extender/router';
import { createRouter } from '../../../../lambdas/extender/router';
import type { ExtenderVerb } from '../../../../lambdas/observability/metric-catalog';
import type { Profile } from '../../../../lambdas/scheduling';
import { createExtenderProfile, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import type { WireReply } from './kube-scheduler-wire';
import { wireReply } from './kube-scheduler-wire';

export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixture(name)) as T;
}

/** Records what the router reports, so tests can assert on decisions and failures. */
export class RecordingObserver implements ExtenderObserver {
  readonly decisions: { verb: ExtenderVerb; summary: DecisionSummary }[] = [];
  readonly failures: { verb: ExtenderVerb | undefined; status: number; message: string }[] = [];
  readonly warnings: string[] = [];

  decision(verb: ExtenderVerb, summary: DecisionSummary): void {
    this.decisions.push({ verb, summary });
  }

  failure(verb: ExtenderVerb | undefined, status: number, message: string): void {
    this.failures.push({ verb, status, message });
  }

  warn(message: string): void {
    this.warnings.push(message);
  }
}

/** A cache over fixed cluster state (the TTL logic has its own tests). */
/** Cluster state as `kubectl get nodes,pods -o json` would list it. */
export interface ClusterState {
  readonly nodes: readonly unknown[];
  readonly pods: readonly unknown[];
}

export function stateCache(state: ClusterState): ClusterCache {
  return new TtlClusterCache({ load: async () => snapshotFromKubernetes(state.nodes, state.pods) }, { ttlMs: 60_000 });
}

export function failingCache(message: string): ClusterCache {
  return { snapshot: async () => Promise.reject(new Error(message)) };
}

export interface Harness {
  readonly router: Router;
  readonly observer: RecordingObserver;
  post(path: string, body: unknown): Promise<RouterResponse>;
  /** The same call, answered as the ALB passes it on: status, headers and the body's text. */
  wire(path: string, body: unknown): Promise<WireReply>;
}

export function harness(options: { cache?: ClusterCache; basePath?: string; profile?: Profile } = {}): Harness {
  const observer = new RecordingObserver();
  const router = createRouter({
    profile: options.profile ?? createExtenderProfile(),
    cache: options.cache,
    observer,
    ...(options.basePath === undefined ? {} : { basePath: options.basePath }),
  });
  const post = (path: string, body: unknown): Promise<RouterResponse> => router({ method: 'POST', path, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { router, observer, post, wire: async (path, body) => wireReply(await post(path, body)) };
}
