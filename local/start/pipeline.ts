// The whole pipeline on this machine: moto, the local control plane, the three
// Lambdas (real handler modules, each in its own worker with its own
// environment), EventBridge (EC2 state-change events and schedules), the ALB
// in front of the extender, the gpu-scheduler kube-scheduler calling it, and
// Karpenter (its kwok cloud provider, each launch an instance in moto) launching GPU nodes from EC2's types.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ALBResult } from 'aws-lambda';
import type { AppConfig } from '../../cdk/app-config/app-config';
import { GPU_NODE_TAINT_KEY } from '../../cdk/lib/admission/gpu-intent-policies';
import { LAMBDA_ENTRIES, type PipelineFunctionName } from '../../cdk/lib/functions/lambda-entries';
import { startAlbAdapter } from '../extender-host/alb-adapter';
import { createLocalMutualTls } from '../extender-host/extender-mtls';
import { ensureKubeBinaries, type KubeBinaries } from '../builds/kube-binaries';
import { ensureKarpenterBinaries } from '../builds/karpenter-binaries';
import { startKarpenter, type Karpenter } from '../addons/karpenter';
import { startControlPlane, type ControlPlane } from '../control-plane/control-plane';
import { installProductPolicies } from '../policies/product-policies';
import { startKubeScheduler } from '../control-plane/kube-scheduler';
import { awsClientConfig, LOCAL_AWS_REGION, startMoto, type MotoServer } from '../aws/moto';
import { Ec2StateChangeSource, matchesInstanceRunningRule } from './ec2-state-events';
import { LOCAL_ACCOUNT_ID, LocalEventBridge, scheduledEvent, type Delivery, type RetryPolicy } from './event-bridge';
import { ExtenderTap } from './extender-tap';
import { functionEnvironment } from './function-environment';
import { LocalLambda } from './local-lambda';
import type { Teardown } from './teardown';
import { errorMessage } from '../../lambdas/common/error-message';

/** Lambda retries after a failed asynchronous invocation: ~1 and ~2 minutes on AWS, seconds here. */
const LOCAL_RETRY_BASE_DELAY_MS = 2_000;
const EC2_POLL_INTERVAL_MS = 1_000;

export interface PipelineClients {
  /** system:masters, for the demo and the user. */
  core: CoreV1Api;
  apps: AppsV1Api;
  ec2: EC2Client;
  cloudWatch: CloudWatchClient;
}

export interface LocalPipeline {
  config: AppConfig;
  binaries: KubeBinaries;
  controlPlane: ControlPlane;
  moto: MotoServer;
  clients: PipelineClients;
  lambdas: Record<PipelineFunctionName, LocalLambda>;
  extenderUrl: string;
  extenderTap: ExtenderTap;
  /** GPU capacity on demand: a NodePool tainted like the stack's GPU nodes. */
  karpenter: Karpenter;
  /** Every EventBridge delivery so far (labeler and reconciler), oldest first. */
  deliveries: Delivery[];
  /** Fires a rule's schedule now instead of waiting for the next period. */
  runSchedule(name: 'labeler' | 'reconciler'): Promise<Delivery>;
  /** Directory of all logs (components and Lambdas); removed at teardown. */
  logDir: string;
}

export interface PipelineOptions {
  config: AppConfig;
  teardown: Teardown;
  log: (message: string) => void;
  /** Called for each delivery as it completes. */
  onDelivery?: (delivery: Delivery) => void;
}

function isAlbResult(value: unknown): value is ALBResult {
  return typeof value === 'object' && value !== null && typeof (value as { statusCode?: unknown }).statusCode === 'number';
}

export async function startPipeline({ config, teardown, log, onDelivery }: PipelineOptions): Promise<LocalPipeline> {
  const binaries = await ensureKubeBinaries((message) => log(message));
  const karpenterBinaries = await ensureKarpenterBinaries((message) => log(message));

  const moto = await startMoto(process.env, (message) => log(message));
  teardown.add('moto_server', () => moto.stop());
  log(`moto_server ready at ${moto.url}`);

  const controlPlane = await startControlPlane({ binaries, log: (message) => log(message.replace(/^\[control-plane\] /, '')) });
  teardown.add('control plane', () => controlPlane.stop());
  const { info } = controlPlane;
  // npm start runs the Lambdas as deployed: the product's admission policies too.
  await installProductPolicies(info);

  const admin = new KubeConfig();
  admin.loadFromFile(info.adminKubeconfig);
  const clients: PipelineClients = {
    core: admin.makeApiClient(CoreV1Api),
    apps: admin.makeApiClient(AppsV1Api),
    ec2: new EC2Client(awsClientConfig(moto.url)),
    // moto cannot read gzip-compressed PutMetricData bodies (the SDK compresses those over 10 KB).
    cloudWatch: new CloudWatchClient({ ...awsClientConfig(moto.url), disableRequestCompression: true }),
  };

  // The local API server as a new cluster's endpoint and CA, which the stack sets on the extender.
  const cluster = { endpoint: info.apiServerUrl, caData: readFileSync(info.caFile).toString('base64') };
  // Cold starts in parallel: each loads its handler module (AWS SDK, Kubernetes client) in its own worker.
  const names: PipelineFunctionName[] = ['extender', 'labeler', 'reconciler'];
  const loaded = await Promise.allSettled(
    names.map((name) =>
      LocalLambda.start({
        functionName: `${config.clusterName}-${name}`,
        entry: LAMBDA_ENTRIES[name],
        environment: functionEnvironment(config, name, { motoUrl: moto.url, cluster }),
        kubeconfig: info.lambdaKubeconfigs[name],
        timeoutMs: config[name].timeoutSeconds * 1000,
        memoryMiB: config[name].memorySizeMiB,
        region: LOCAL_AWS_REGION,
        accountId: LOCAL_ACCOUNT_ID,
        logFile: join(info.logDir, `lambda-${name}.log`),
      }),
    ),
  );
  const lambdas = {} as Record<PipelineFunctionName, LocalLambda>;
  for (const [i, name] of names.entries()) {
    const outcome = loaded[i];
    if (outcome?.status === 'fulfilled') {
      lambdas[name] = outcome.value;
      teardown.add(`${name} Lambda`, () => outcome.value.stop());
    }
  }
  const failedLoad = loaded.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failedLoad) throw failedLoad.reason instanceof Error ? failedLoad.reason : new Error(String(failedLoad.reason));
  log(`Lambdas loaded: ${names.map((n) => lambdas[n].functionName).join(', ')} (each with its own kubeconfig: its least-privilege RBAC identity)`);

  const extenderTap = new ExtenderTap();
  // As deployed: mutual TLS unless the config opts out, and the extender's reserved concurrency enforced.
  const mtls = config.extender.mutualTls ? await createLocalMutualTls(join(info.logDir, 'extender-mtls')) : undefined;
  const adapter = await startAlbAdapter({
    ...(mtls ? { tls: mtls.adapter } : {}),
    ...(config.extender.reservedConcurrency > 0 ? { reservedConcurrency: config.extender.reservedConcurrency } : {}),
    functionName: lambdas.extender.functionName,
    timeoutMs: config.extender.timeoutSeconds * 1000,
    handler: async (event, context) => {
      const result = await lambdas.extender.invoke(event, context.awsRequestId);
      if (!isAlbResult(result)) throw new Error('the extender returned something that is not an ALB result');
      extenderTap.record(event, result);
      return result;
    },
  });
  teardown.add('ALB adapter', () => adapter.stop());

  const gpuScheduler = await startKubeScheduler({
    binary: binaries.path['kube-scheduler'],
    kubeconfig: info.schedulerKubeconfig,
    workDir: info.logDir,
    name: config.scheduler.name,
    profiles: [config.scheduler.name],
    // The config's extender settings, as the CDK's second scheduler gets them (cdk/lib/scheduler/extender-configuration.ts).
    extender: { ...config.scheduler.extender, urlPrefix: adapter.url, ...(mtls ? { tlsConfig: mtls.scheduler } : {}) },
  });
  teardown.add(config.scheduler.name, () => gpuScheduler.stop());
  log(`${config.scheduler.name} kube-scheduler ready, extender behind the ALB adapter at ${adapter.url}`);

  const karpenter = await startKarpenter({
    binaries: karpenterBinaries,
    kubeConfig: admin,
    kubeconfigPath: info.adminKubeconfig,
    workDir: info.logDir,
    ec2: clients.ec2,
    motoUrl: moto.url,
    clusterName: config.clusterName,
    // The GPU nodes' taint, as the stack's GPU capacity carries it: only pods that tolerate it (GPU pods) get these nodes.
    nodePool: { taints: [{ key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NoSchedule' }] },
  });
  teardown.add('Karpenter', () => karpenter.stop());
  log(`Karpenter ${karpenterBinaries.version} ready (kwok provider, each launch an instance in moto): NodePool ${karpenter.nodePoolName}, ${karpenter.instanceTypes.length} EC2 GPU types`);

  const deliveries: Delivery[] = [];
  const eventBridge = new LocalEventBridge((delivery) => {
    deliveries.push(delivery);
    onDelivery?.(delivery);
  });
  teardown.add('EventBridge', () => eventBridge.stop());
  const retry = (name: 'labeler' | 'reconciler'): RetryPolicy => ({ retryAttempts: config[name].retryAttempts, baseDelayMs: LOCAL_RETRY_BASE_DELAY_MS });
  const ruleName = (name: string): string => `${config.clusterName}-${name}-schedule`;
  for (const name of ['labeler', 'reconciler'] as const) {
    eventBridge.schedule(ruleName(name), lambdas[name], config[name].scheduleMinutes * 60_000, LOCAL_AWS_REGION, retry(name));
  }

  const ec2Events = new Ec2StateChangeSource(
    clients.ec2,
    LOCAL_AWS_REGION,
    (event) => {
      if (matchesInstanceRunningRule(event)) void eventBridge.deliver(lambdas.labeler, event, retry('labeler'));
    },
    (error) => log(`EC2 state-change polling failed: ${errorMessage(error)}`),
  );
  ec2Events.start(EC2_POLL_INTERVAL_MS);
  teardown.add('EC2 state-change events', () => ec2Events.stop());

  return {
    config,
    binaries,
    controlPlane,
    moto,
    clients,
    lambdas,
    extenderUrl: adapter.url,
    extenderTap,
    karpenter,
    deliveries,
    runSchedule: (name) => eventBridge.deliver(lambdas[name], scheduledEvent(ruleName(name), LOCAL_AWS_REGION), retry(name)),
    logDir: info.logDir,
  };
}
