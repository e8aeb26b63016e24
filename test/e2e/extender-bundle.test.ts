// The extender as it is deployed: one ESM file built with the esbuild options
// NodejsFunction is given (cdk/lib/functions/esbuild-options.ts), its handler
// made by the bundle's own createHandler with the control plane's extender
// identity injected (as local hosts do; the deployed one asks EKS), and
// called by the real kube-scheduler through the local ALB adapter. The first
// /filter lists the real kube-apiserver from inside the bundle; the A10G pod
// must land on the A10G node with the T4 node rejected by that filter.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ALBEvent, ALBResult, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaEsbuildOptions } from '../../cdk/lib/functions/esbuild-options';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';
import { startAlbAdapter, type AlbAdapter } from '../../local/extender-host/alb-adapter';
import { e2eHarness } from './support/e2e-context';
import { kubeconfigOverrides } from '../../local/control-plane/kubeconfig-connection';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import type { ManagedProcess } from '../../local/common/managed-process';
import { waitForPodScheduled } from '../../local/nodes/pod-status';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;
const POD = 'a10g-bundled';
const outdir = mkdtempSync(join(tmpdir(), 'extender-bundle-'));
// The bundled handler reads its configuration from process.env, as on Lambda
// (this file's worker has an environment of its own); its log and EMF lines
// are turned off to keep the test output readable.
const ENV = { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true' };
const saved = Object.fromEntries(Object.keys(ENV).map((key) => [key, process.env[key]]));

let adapter: AlbAdapter | undefined;
let scheduler: ManagedProcess | undefined;
let namespace = '';
let a10g: GpuNode | undefined;
let t4: GpuNode | undefined;
const replies: { path: string; status: number; body: string }[] = [];

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-bundle');
  const outfile = join(outdir, 'index.mjs');
  await build({ ...lambdaEsbuildOptions(), entryPoints: [LAMBDA_ENTRIES.extender], outfile, absWorkingDir: PROJECT_ROOT, logLevel: 'error' });
  Object.assign(process.env, ENV);
  type Handler = (event: ALBEvent, context: Context) => Promise<ALBResult>;
  const bundled = (await import(pathToFileURL(outfile).href)) as { createHandler: (options: ReturnType<typeof kubeconfigOverrides>) => Handler };
  const handler = bundled.createHandler(kubeconfigOverrides(harness.info.controlPlane.lambdaKubeconfigs.extender));
  adapter = await startAlbAdapter({
    functionName: 'gpu-extender',
    handler: async (event, context) => {
      const result = await handler(event, context);
      replies.push({ path: event.path, status: result.statusCode, body: String(result.body ?? '') });
      return result;
    },
  });
  [a10g, t4] = await Promise.all([A10G_NODE_TYPE, T4_NODE_TYPE].map((instanceType) => createGpuNode(harness.nodeClients, { instanceType, seedLabels: true })));
  scheduler = await harness.startGpuScheduler(deployedExtenderSettings(adapter.url));
});

afterAll(async () => {
  await harness.tearDown(namespace, scheduler, adapter);
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(outdir, { recursive: true, force: true });
});

describe('the extender bundled as deployed, called by the real kube-scheduler', () => {
  it('lists the cluster from inside the bundle and keeps only the A10G node for the A10G pod', async () => {
    if (!a10g || !t4) throw new Error('setup did not finish');
    await core.createNamespacedPod({ namespace, body: a10gPod(POD) });
    expect(await waitForPodScheduled(core, { namespace, name: POD }, 60_000), `a10g=${a10g.name} t4=${t4.name}`).toBe(a10g.name);

    const filters = replies.filter((reply) => reply.path.endsWith('/filter'));
    expect(filters.length).toBeGreaterThan(0);
    for (const reply of filters) {
      expect(reply.status).toBe(200);
      const body = JSON.parse(reply.body) as { NodeNames: string[] | null; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string>; Error: string };
      expect(body.Error).toBe('');
      expect(body.NodeNames).toEqual([a10g.name]);
      expect({ ...body.FailedNodes, ...body.FailedAndUnresolvableNodes }[t4.name]).toMatch(/T4/);
    }
    expect(replies.filter((reply) => reply.path.endsWith('/prioritize')).every((reply) => reply.status === 200)).toBe(true);
  });
});
