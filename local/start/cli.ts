// `npm start`: the whole pipeline on this machine, a demo on it, and a clean
// teardown on Ctrl-C (or right after the demo with --exit-after-demo).
import type { AppConfig } from '../../cdk/app-config/app-config';
import { AppConfigError } from '../../cdk/app-config/app-config-error';
import { loadAppConfig } from '../../cdk/app-config/load-app-config';
import type { DemoResult } from './demo';
import type { Delivery } from './event-bridge';
import { lineWriter } from './line-writer';
import { Output } from './output';
import { readCommandLine } from '../../cli/command-line';
import { START_CLI, startOptionsFrom, type StartOptions } from './options';
import type { LocalPipeline } from './pipeline';
import { missingPrerequisites } from './prerequisites';
import { DEMO_NODE_ID_LABEL, DEMO_POD_KIND_LABEL, DEMO_SCENARIO_FILE, loadScenario, ScenarioError, type Scenario } from './scenario';
import { Teardown } from '../common/teardown';
import { errorMessage } from '../../lambdas/common/error-message';

// Node 20 is fine locally (the Lambdas run nodejs22.x on AWS); the SDK's multi-line notice about it would bury the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const out = Output.forStdout();
const errorLine = lineWriter(process.stderr);
const teardown = new Teardown();
type Phase = 'starting' | 'running' | 'stopping';
let phase: Phase = 'starting';

function fail(message: string, exitCode: number): never {
  errorLine(`${out.paint('red', 'npm start:')} ${message}`);
  process.exit(exitCode);
}

async function stopAndExit(exitCode: number): Promise<never> {
  phase = 'stopping';
  out.step('stopping: gpu-scheduler, ALB adapter, Lambdas, control plane, moto …');
  await teardown.run((message) => out.step(message));
  out.step('stopped: every process ended, temporary files removed');
  process.exit(exitCode);
}

/**
 * The first SIGINT or SIGTERM starts the teardown; any later one is ignored,
 * because the teardown already ends every process. One Ctrl-C often arrives
 * more than once (the terminal signals the whole foreground process group,
 * and npm forwards the signal to its child again), at whatever interval a
 * busy machine makes; a second press while stopping changes nothing either.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (phase === 'stopping') return;
  const cleanExit = phase === 'running';
  out.line('');
  out.step(`${signal} received`);
  void stopAndExit(cleanExit ? 0 : 130);
}

const POD_POLL_INTERVAL_MS = 1_000;
const clock = (at = new Date()): string => at.toISOString().slice(11, 19);

/** One line per EventBridge delivery once the pipeline is just running (the demo prints its own). */
function describeDelivery(delivery: Delivery): string {
  const time = clock(new Date(delivery.finishedAt));
  const trigger = delivery.event['detail-type'] === 'Scheduled Event' ? 'schedule' : `${String(delivery.event.detail['instance-id'])} ${String(delivery.event.detail['state'])}`;
  if (!delivery.ok) return `${time} ${delivery.functionName} (${trigger}) ${out.paint('red', `failed after ${delivery.attempts} attempt(s)`)}: ${delivery.error ?? ''}`;
  const r = (delivery.result ?? {}) as Record<string, unknown>;
  const fields = ['result', 'nodeName', 'nodes', 'labeled', 'alreadyCorrect', 'failed', 'podsEvaluated', 'deletionCostsWritten', 'nodeUtilizationWritten']
    .filter((key) => r[key] !== undefined && typeof r[key] !== 'object')
    .map((key) => `${key}=${String(r[key])}`);
  return `${time} ${delivery.functionName} (${trigger}) ${fields.join(' ')}`;
}

function printSummary(pipeline: LocalPipeline, result: DemoResult): void {
  out.section('Summary');
  for (const check of result.checks) out.line(`  ${check.ok ? out.paint('green', '✓') : out.paint('red', '✗')} ${check.text}`);
  const failed = result.checks.filter((c) => !c.ok).length;
  out.line('');
  out.line(
    `  demo ${failed === 0 ? out.paint('green', 'passed') : out.paint('red', `failed (${failed} of ${result.checks.length} checks)`)} in ${(result.durationMs / 1000).toFixed(1)} s; ` +
      `${pipeline.deliveries.length} EventBridge deliveries`,
  );
}

function printHowToLook(pipeline: LocalPipeline, scenario: Scenario | undefined): void {
  const { info } = pipeline.controlPlane;
  out.section('Try it');
  out.line(`  kubectl --kubeconfig ${info.adminKubeconfig} get pods -o wide${scenario ? ` -n ${scenario.namespace}` : ' -A'}`);
  out.line(`  kubectl --kubeconfig ${info.adminKubeconfig} get nodes -L ${scenario ? `${DEMO_NODE_ID_LABEL},` : ''}gpu.nvidia.com/model,gpu.nvidia.com/count`);
  out.line(`  (or export KUBECONFIG=${info.adminKubeconfig}; kubectl is optional, nothing here needs it)`);
  out.line(`  GPU pods: spec.schedulerName: ${pipeline.config.scheduler.name} (extender behind the ALB adapter at ${pipeline.extenderUrl})`);
  out.line(`  AWS (moto): AWS_ENDPOINT_URL=${pipeline.moto.url} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing`);
  out.line(`  logs (components and Lambdas): ${pipeline.logDir}`);
  out.line('  pods you create: there is no kubelet, so npm start marks bound pods Running and finishes deletions, one line each below');
  out.line(
    `  schedules: labeler every ${pipeline.config.labeler.scheduleMinutes} min, reconciler every ${pipeline.config.reconciler.scheduleMinutes} min; ` +
      'new EC2 instances in moto get "running" events within a second',
  );
}

async function main(options: StartOptions): Promise<void> {
  let config: AppConfig;
  let scenario: Scenario | undefined;
  try {
    config = loadAppConfig({ configFile: options.configFile, cwd: process.cwd() });
    scenario = options.demo ? loadScenario(options.scenarioFile ?? DEMO_SCENARIO_FILE) : undefined;
  } catch (error) {
    if (error instanceof AppConfigError || error instanceof ScenarioError) fail(`${options.configFile && error instanceof AppConfigError ? `${options.configFile}: ` : ''}${error.message}`, 2);
    throw error;
  }
  const missing = missingPrerequisites();
  if (missing.length > 0) fail(`missing prerequisite${missing.length > 1 ? 's' : ''}:\n${missing.map((m) => `  - ${m}`).join('\n')}`, 3);

  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Loaded only now (AWS SDK, Kubernetes client): bad options and missing tools are reported at once.
  const [{ startPipeline }, { Demo }, { PodLifecycle }] = await Promise.all([import('./pipeline'), import('./demo'), import('./pod-lifecycle')]);

  out.line(out.paint('bold', `eks-gpu-scheduling: the pipeline, locally (cluster "${config.clusterName}"${options.configFile ? `, config ${options.configFile}` : ', default config'})`));
  const started = Date.now();
  const pipeline = await startPipeline({
    config,
    teardown,
    // Once stopping, the poller may still see moto go away (Ctrl-C reaches every process in the group): not news.
    log: (message) => {
      if (phase !== 'stopping') out.step(message);
    },
    onDelivery: (delivery) => {
      if (phase === 'running') out.step(describeDelivery(delivery));
    },
  });
  out.step(`pipeline up in ${((Date.now() - started) / 1000).toFixed(1)} s (Kubernetes ${pipeline.binaries.version}, control plane in ${pipeline.controlPlane.info.workDir})`);

  if (scenario) {
    const result = await new Demo(pipeline, scenario, out).run();
    printSummary(pipeline, result);
    if (options.exitAfterDemo) {
      await stopAndExit(result.checks.every((c) => c.ok) ? 0 : 1);
    }
  }
  // Read before saying "Running": a Ctrl-C right after that line signals the
  // control plane too, and a read still in flight would then fail as if
  // the start had.
  const nodeIds = new Map<string, string>();
  for (const node of (await pipeline.clients.core.listNode()).items) {
    const id = node.metadata?.labels?.[DEMO_NODE_ID_LABEL];
    if (id && node.metadata?.name) nodeIds.set(node.metadata.name, id);
  }
  printHowToLook(pipeline, scenario);
  out.line('');
  out.line(out.paint('bold', '  Running. Ctrl-C stops everything.'));
  phase = 'running';
  const lifecycle = new PodLifecycle({
    core: pipeline.clients.core,
    // The demo's jobs were explained in its tables.
    ignore: (pod) => pod.metadata?.labels?.[DEMO_POD_KIND_LABEL] !== undefined,
    nodeLabel: (name) => nodeIds.get(name) ?? name,
    report: (line) => out.step(`${clock()} ${line}`),
    onError: (error) => out.step(`${clock()} pod status stand-in failed: ${errorMessage(error)}`),
  });
  lifecycle.start(POD_POLL_INTERVAL_MS);
  teardown.add('pod status stand-in', () => lifecycle.stop());
  // Child processes keep the event loop alive too; this makes it explicit.
  setInterval(() => undefined, 1 << 30);
}

const options = readCommandLine(START_CLI, process.argv.slice(2), (values) => startOptionsFrom(values, process.env.INIT_CWD ?? process.cwd()));
main(options).catch(async (error: unknown) => {
  if (phase === 'stopping') return; // a signal is tearing down; its errors are expected
  errorLine(`${out.paint('red', 'npm start failed:')} ${errorMessage(error)}`);
  await stopAndExit(1);
});
