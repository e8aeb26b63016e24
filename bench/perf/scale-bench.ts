// `npm run bench -- --only scale`: the extender against a real kube-apiserver
// (and etcd) holding a big cluster. A cold container (the CDK bundle in a
// fresh node) answers its first NodeNames /filter; a second one does the same
// through a counting proxy in front of the API server (local/proxies/kube-api-proxy.ts), which
// measures what it reads, per call, on the wire, and then serves as the warm
// container under steady scheduling.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { DEFAULT_CACHE_TTL_MS } from '../../lambdas/extender/config';
import { ensureKubeBinaries } from '../../local/builds/kube-binaries';
import { startControlPlane } from '../../local/control-plane/control-plane';
import { nodeNamesArgs } from './extender-fixtures';
import { populateCluster } from './scale-cluster';
import { bundleContainer, startExtenderContainer, type ContainerStats } from './scale-container';
import { countsBetween, startCountingProxy, type ProxyCounts } from '../../local/proxies/kube-api-proxy';
import { createKubeWriter, type KubeWriterConnection } from './scale-kube-writer';
import { createCpuQuota } from './cpu-quota';
import { runSteady, type SteadyResult } from './scale-steady';

export interface ScaleOptions {
  readonly nodes: number;
  readonly pods: number;
  /** Length of the steady period. */
  readonly seconds: number;
  readonly ratePerSecond: number;
  /** Where the bundles go. */
  readonly outDir: string;
  /** Measure the extender of this commit instead of the working tree. */
  readonly commit?: string;
  /** Run the containers under this CPU quota (cpu-quota.ts), as a Lambda of vcpu × 1,769 MB; full CPU when unset. */
  readonly vcpu?: number;
}

export interface ScaleResult {
  readonly nodes: number;
  readonly pods: number;
  /** The commit measured, and the extender files changed on top of it (uncommitted) when it ran. */
  readonly commit: string;
  readonly uncommitted: readonly string[];
  /** The containers' CPU quota; undefined: all the machine's CPU. */
  readonly vcpu: number | undefined;
  readonly setup: { readonly controlPlaneMs: number; readonly nodesMs: number; readonly podsMs: number };
  readonly cold: {
    /** Import of the bundle (the Lambda's INIT). */
    readonly initMs: number;
    /** fork to the ALB adapter listening: node start, init, adapter. */
    readonly startMs: number;
    /** The first /filter, request sent to answer received (the listing happens inside it), straight to the API server. */
    readonly firstFilterMs: number;
    readonly keptNodes: number;
    /** The same from a second fresh container through the counting proxy (which decrypts and re-encrypts every byte). */
    readonly viaProxyFirstFilterMs: number;
    /** What that second cold container read. */
    readonly api: ProxyCounts;
    /** RSS once the adapter listened, before any request. */
    readonly readyRssMiB: number;
    /** After the first answer. */
    readonly stats: ContainerStats;
  };
  readonly warm: SteadyResult & { readonly api: ProxyCounts };
  /** Peak RSS over the container's whole life. */
  readonly peakRssMiB: number;
  readonly lambdaMemoryMiB: number;
  readonly httpTimeoutSeconds: number;
  readonly cacheTtlSeconds: number;
}

const WRITE_CONCURRENCY = 32;

function connectionOf(kubeconfigPath: string): KubeWriterConnection {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const cluster = config.getCurrentCluster();
  const token = config.getCurrentUser()?.token;
  if (!cluster?.caData || !token) throw new Error(`${kubeconfigPath}: expected a cluster with CA data and a token user`);
  return { server: cluster.server, caPem: Buffer.from(cluster.caData, 'base64').toString('utf8'), token };
}

/** JSON, which the extender reads without loading a YAML parser (the deployed Lambda reads no kubeconfig at all). */
function writeJsonKubeconfig(path: string, server: string, { caPem, token }: KubeWriterConnection): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'extender', user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'extender' } }],
    'current-context': 'local',
  };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
}

/** The filter's ExtenderFilterResult; a non-200 or an Error in it (e.g. the listing failed) ends the benchmark. */
function filterAnswer(response: { status: number; body: string }, stderrTail: string): { NodeNames?: string[] | null } {
  const answer = response.status === 200 ? (JSON.parse(response.body) as { NodeNames?: string[] | null; Error?: string }) : {};
  if (response.status !== 200 || answer.Error) {
    throw new Error(`the cold extender answered ${response.status} ${answer.Error ?? response.body.slice(0, 300)}\n${stderrTail}`);
  }
  return answer;
}

function gitState(commit: string | undefined): { commit: string; uncommitted: string[] } {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  if (commit !== undefined) return { commit: git('rev-parse', '--short', commit), uncommitted: [] };
  return {
    commit: git('rev-parse', '--short', 'HEAD'),
    uncommitted: git('status', '--porcelain', '--', 'lambdas/extender', 'lambdas/kube', 'lambdas/scheduling')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3)),
  };
}

export async function benchScale(options: ScaleOptions, log: (message: string) => void): Promise<ScaleResult> {
  const git = gitState(options.commit);
  const bundles = await bundleContainer(options.outDir, options.commit);
  // Created first: a machine that cannot set a quota fails before the minutes of setup.
  const quota = options.vcpu === undefined ? undefined : createCpuQuota(options.vcpu);
  const start = (env: Record<string, string>) => startExtenderContainer(bundles, env, quota && ((pid) => quota.add(pid)));
  const binaries = await ensureKubeBinaries(log);
  const startedAt = performance.now();
  const controlPlane = await startControlPlane({ binaries, defaultScheduler: false, log });
  const controlPlaneMs = performance.now() - startedAt;
  try {
    const admin = connectionOf(controlPlane.info.adminKubeconfig);
    const writer = createKubeWriter(admin, WRITE_CONCURRENCY);
    const cluster = await populateCluster(writer, options.nodes, options.pods, WRITE_CONCURRENCY, log);

    const certDir = dirname(controlPlane.info.caFile);
    const proxy = await startCountingProxy({
      target: controlPlane.info.apiServerUrl,
      caPem: admin.caPem,
      certPem: readFileSync(controlPlane.info.caFile, 'utf8'),
      keyPem: readFileSync(join(certDir, 'apiserver.key'), 'utf8'),
    });
    // The extender's least-privilege identity (list nodes and pods), through the proxy.
    const kubeconfig = join(controlPlane.info.workDir, 'extender-via-proxy.kubeconfig');
    const extenderIdentity = connectionOf(controlPlane.info.lambdaKubeconfigs.extender);
    writeJsonKubeconfig(kubeconfig, proxy.url, extenderIdentity);
    const directKubeconfig = join(controlPlane.info.workDir, 'extender-direct.kubeconfig');
    writeJsonKubeconfig(directKubeconfig, controlPlane.info.apiServerUrl, extenderIdentity);
    try {
      // The headline cold start goes straight to the API server, first, on the
      // freshly filled cluster; a second cold container then goes through the
      // proxy to count what a cold start reads, and stays on as the warm one.
      log(`[bench] scale: cold extender container, first /filter over ${options.nodes} node names`);
      const body = nodeNamesArgs(cluster.nodes);
      const direct = await start({ KUBECONFIG: directKubeconfig });
      const directFirst = await direct.post('/filter', body).finally(() => direct.stop());
      const answer = filterAnswer(directFirst, direct.stderrTail());
      log(`[bench] scale: first /filter ${directFirst.ms.toFixed(0)} ms; again through the counting proxy`);
      const before = proxy.counts();
      const container = await start({ KUBECONFIG: kubeconfig });
      try {
        const first = await container.post('/filter', body);
        filterAnswer(first, container.stderrTail());
        const coldApi = countsBetween(before, proxy.counts());
        const cold = {
          initMs: direct.initMs,
          startMs: direct.startMs,
          firstFilterMs: directFirst.ms,
          keptNodes: (answer.NodeNames ?? []).length,
          viaProxyFirstFilterMs: first.ms,
          api: coldApi,
          readyRssMiB: container.readyStats.rssMiB,
          stats: await container.stats(),
        };
        log(`[bench] scale: through the proxy ${first.ms.toFixed(0)} ms; steady scheduling for ${options.seconds} s at ${options.ratePerSecond} pods/s`);

        const warmBefore = proxy.counts();
        const steady = await runSteady(container, writer, cluster, { seconds: options.seconds, ratePerSecond: options.ratePerSecond });
        const warm = { ...steady, api: countsBetween(warmBefore, proxy.counts()) };
        const last = await container.stats();
        const defaults = APP_CONFIG_DEFAULTS;
        return {
          nodes: options.nodes,
          pods: options.pods,
          ...git,
          vcpu: options.vcpu,
          setup: { controlPlaneMs, nodesMs: cluster.nodesMs, podsMs: cluster.podsMs },
          cold,
          warm,
          peakRssMiB: last.peakRssMiB,
          lambdaMemoryMiB: defaults.extender.memorySizeMiB,
          httpTimeoutSeconds: defaults.scheduler.extender.httpTimeoutSeconds,
          cacheTtlSeconds: DEFAULT_CACHE_TTL_MS / 1000,
        };
      } finally {
        await container.stop();
      }
    } finally {
      await proxy.stop();
      writer.close();
    }
  } finally {
    await controlPlane.stop();
    quota?.remove();
  }
}
