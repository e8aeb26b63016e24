// Runs the real Prometheus (local/builds/prometheus-binary.ts) on a scrape
// configuration, and reads it back through its HTTP API: targets and
// instant queries, as Grafana's Prometheus data source does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';

export interface PrometheusOptions {
  binary: string;
  /** `scrape_configs` entries, as Prometheus reads them. */
  scrapeConfigs: readonly Record<string, unknown>[];
  /** How often every job is scraped (and rules evaluated). */
  scrapeInterval: string;
  workDir: string;
}

export interface PrometheusTarget {
  health: 'up' | 'down' | 'unknown';
  lastError: string;
  labels: Record<string, string>;
  scrapePool: string;
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface LocalPrometheus {
  url: string;
  process: ManagedProcess;
  /** Active targets (those discovery kept). */
  activeTargets(): Promise<PrometheusTarget[]>;
  /** An instant query's vector (a scalar comes back as one sample); throws with Prometheus's error on a bad query. */
  query(expr: string): Promise<PromSample[]>;
  stop(): Promise<void>;
}

async function apiGet<T>(url: string): Promise<T> {
  const res = await httpGet(url, { timeoutMs: 10_000 });
  const body = JSON.parse(res.body) as { status: string; data: T; error?: string; errorType?: string };
  if (res.status !== 200 || body.status !== 'success') throw new Error(`${url}: ${res.status} ${body.errorType ?? ''} ${body.error ?? res.body}`);
  return body.data;
}

export async function startPrometheus(options: PrometheusOptions): Promise<LocalPrometheus> {
  mkdirSync(options.workDir, { recursive: true });
  const configFile = join(options.workDir, 'prometheus.yml');
  writeFileSync(configFile, stringify({ global: { scrape_interval: options.scrapeInterval, evaluation_interval: options.scrapeInterval }, scrape_configs: options.scrapeConfigs }));
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const proc = await startReadyProcess(
    {
      name: 'prometheus',
      command: options.binary,
      logFile: join(options.workDir, 'prometheus.log'),
      args: [`--config.file=${configFile}`, `--storage.tsdb.path=${join(options.workDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug'],
    },
    { what: 'Prometheus /-/ready', probe: async () => (await httpGet(`${url}/-/ready`)).status === 200 },
  );
  return {
    url,
    process: proc,
    async activeTargets() {
      const data = await apiGet<{ activeTargets: PrometheusTarget[] }>(`${url}/api/v1/targets?state=active`);
      return data.activeTargets;
    },
    async query(expr) {
      const data = await apiGet<{ resultType: string; result: PromSample[] | [number, string] }>(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      if (data.resultType === 'scalar') return [{ metric: {}, value: data.result as [number, string] }];
      return data.result as PromSample[];
    },
    stop: () => proc.stop(),
  };
}
