// Scale from zero, timed: GPU pods that no node fits, on the pipeline `npm
// start` runs (the real kube-apiserver, gpu-scheduler kube-scheduler, the
// extender behind the ALB adapter, the labeler woken by EC2 `running` events,
// Karpenter launching moto instances), one pod after the other, each stage
// of its way to a node timed from the API server's watches. In the same run,
// a control: the same pods for the default scheduler, on a NodePool without
// the start-up taint, so what our components add is the difference.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { loadAppConfig } from '../../cdk/app-config/load-app-config';
import { GPU_NODE_TAINT_KEY, NAMESPACE_OPT_IN } from '../../cdk/lib/admission/gpu-intent-policies';
import { GPU_RESOURCE, NODE_TAINT, POD_ANNOTATION } from '../../lambdas/scheduling/keys';
import { ensureKarpenterBinaries } from '../../local/builds/karpenter-binaries';
import { startKarpenter, type Karpenter, type NodePoolOptions } from '../../local/addons/karpenter';
import { Teardown } from '../../local/common/teardown';
import { waitFor } from '../../local/common/wait';
import { podEvents } from '../../local/nodes/pod-status';
import { errorMessage } from '../../lambdas/common/error-message';
import { startPipeline, type LocalPipeline } from '../../local/start/pipeline';
import { ScaleFromZeroTimeline } from './scale-from-zero-timeline';
import { median } from './stats';

export interface ScaleFromZeroOptions {
  /** Pods per arm (ours and the control), one after the other. */
  readonly runs: number;
  /** GPUs each pod asks: 8 fills a p5.48xlarge, so every pod needs a node of its own. */
  readonly gpus?: number;
}

/** One pod's way, in seconds from the previous step. */
export interface ScaleFromZeroStages {
  readonly pendingToNodeClaimS: number;
  readonly nodeClaimToRegisteredS: number;
  /** Ours only: from the node's registration to our labels on it. */
  readonly registeredToLabelsS?: number;
  /** Ours only: from our labels to the start-up taint lifted. */
  readonly labelsToTaintRemovedS?: number;
  /** From the last step before it (taint lifted; for the control, registration) to the pod bound. */
  readonly toBoundS: number;
  readonly pendingToBoundS: number;
}

export interface ScaleFromZeroArm {
  readonly runs: readonly ScaleFromZeroStages[];
  /** The median of each stage over the runs. */
  readonly medians: ScaleFromZeroStages;
}

export interface ScaleFromZeroResult {
  readonly ours: ScaleFromZeroArm;
  readonly control: ScaleFromZeroArm;
  /** What ours takes beyond the control, pending to bound, at the median. */
  readonly addedOverControlMedianS: number;
  readonly instanceType: string | undefined;
}

const POD_TIMEOUT_MS = 240_000;
const GPU_NAME = 'h100';
const KARPENTER_GPU_NAME_LABEL = 'karpenter.k8s.aws/instance-gpu-name';
/** The stack's start-up taint, as `cluster.gpuNodeStartupTaint` puts it on Karpenter's NodePools. */
const STARTUP_TAINT = { key: NODE_TAINT.gpuLabelsPending, value: 'true', effect: 'NoSchedule' } as const;
const GPU_TAINT = { key: GPU_NODE_TAINT_KEY, value: 'true', effect: 'NoSchedule' } as const;

const seconds = (ms: number): number => Math.round(ms) / 1000;

/** Ours: written with its intent only, in a namespace opted in; the admission policies add the scheduler, toleration and affinity. */
function oursPod(name: string, gpus: number): V1Pod {
  return {
    metadata: { name, annotations: { [POD_ANNOTATION.gpuModel]: 'H100' } },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: String(gpus) } } }] },
  };
}

/** The control: the default scheduler, asking for the same GPU in Karpenter's own label. */
function controlPod(name: string, gpus: number): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      tolerations: [{ key: GPU_TAINT.key, operator: 'Exists', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: KARPENTER_GPU_NAME_LABEL, operator: 'In', values: [GPU_NAME] }] }] },
        },
      },
      containers: [{ name: 'main', image: 'cuda', resources: { limits: { [GPU_RESOURCE]: String(gpus) } } }],
    },
  };
}

interface Arm {
  readonly name: 'ours' | 'control';
  readonly namespace: string;
  readonly pod: (name: string, gpus: number) => V1Pod;
  readonly nodePool: NodePoolOptions;
  /** Where the arm's kube-scheduler logs, for the report of a pod that never binds. */
  readonly schedulerLog: string;
}

/** Why a pod is still pending: its events (schedulers', Karpenter's) and Karpenter's last log lines. */
async function pendingReport(core: CoreV1Api, karpenter: Karpenter, ref: { namespace: string; name: string }, schedulerLog: string): Promise<string> {
  const events = (await podEvents(core, ref)).map((e) => `  ${e.source?.component ?? e.reportingComponent ?? '?'}: ${e.reason ?? ''}: ${e.message ?? ''}`);
  const scheduler = existsSync(schedulerLog) ? readFileSync(schedulerLog, 'utf8').split('\n').filter((line) => line.includes(ref.name)).slice(-15).join('\n') : '';
  return `events of ${ref.namespace}/${ref.name}:\n${events.join('\n') || '  none'}\nits scheduler's log:\n${scheduler}\nKarpenter's log:\n${karpenter.logTail(5)}`;
}

/** One pod from creation to bound; its stages from the timeline. */
async function timeOnePod(core: CoreV1Api, karpenter: Karpenter, timeline: ScaleFromZeroTimeline, arm: Arm, index: number, gpus: number): Promise<ScaleFromZeroStages> {
  const name = `${arm.name}-${index}`;
  const created = performance.now();
  await core.createNamespacedPod({ namespace: arm.namespace, body: arm.pod(name, gpus) });
  const bound = await waitFor(
    `${arm.namespace}/${name} bound to a node Karpenter launched`,
    () => {
      timeline.check();
      return timeline.bound.get(`${arm.namespace}/${name}`);
    },
    { timeoutMs: POD_TIMEOUT_MS, intervalMs: 100 },
  ).catch(async (error: unknown) => {
    throw new Error(`${errorMessage(error)}\n${await pendingReport(core, karpenter, { namespace: arm.namespace, name }, arm.schedulerLog)}`);
  });
  const node = timeline.nodes.get(bound.nodeName);
  const claim = timeline.nodeClaimOf(bound.nodeName);
  if (node === undefined || claim === undefined) {
    const claims = [...timeline.nodeClaims].map(([claimName, c]) => `${claimName} → ${c.providerID ?? '?'}`).join(', ');
    throw new Error(`${name} bound to ${bound.nodeName}, which is not a node Karpenter launched during the run (node seen: ${node !== undefined}; NodeClaims: ${claims || 'none'})`);
  }
  if (arm.name === 'control') {
    return {
      pendingToNodeClaimS: seconds(claim.created - created),
      nodeClaimToRegisteredS: seconds(node.registered - claim.created),
      toBoundS: seconds(bound.at - node.registered),
      pendingToBoundS: seconds(bound.at - created),
    };
  }
  if (node.labelled === undefined || node.untainted === undefined) {
    throw new Error(`${name} bound to ${bound.nodeName} ${node.tainted === undefined ? 'which never carried the start-up taint' : 'before its labels were written and its start-up taint lifted'}`);
  }
  return {
    pendingToNodeClaimS: seconds(claim.created - created),
    nodeClaimToRegisteredS: seconds(node.registered - claim.created),
    registeredToLabelsS: seconds(node.labelled - node.registered),
    labelsToTaintRemovedS: seconds(node.untainted - node.labelled),
    toBoundS: seconds(bound.at - node.untainted),
    pendingToBoundS: seconds(bound.at - created),
  };
}

function medians(runs: readonly ScaleFromZeroStages[]): ScaleFromZeroStages {
  const of = (pick: (s: ScaleFromZeroStages) => number | undefined): number | undefined => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : seconds(median(values) * 1000);
  };
  const registeredToLabelsS = of((s) => s.registeredToLabelsS);
  const labelsToTaintRemovedS = of((s) => s.labelsToTaintRemovedS);
  return {
    pendingToNodeClaimS: of((s) => s.pendingToNodeClaimS) ?? 0,
    nodeClaimToRegisteredS: of((s) => s.nodeClaimToRegisteredS) ?? 0,
    ...(registeredToLabelsS === undefined ? {} : { registeredToLabelsS }),
    ...(labelsToTaintRemovedS === undefined ? {} : { labelsToTaintRemovedS }),
    toBoundS: of((s) => s.toBoundS) ?? 0,
    pendingToBoundS: of((s) => s.pendingToBoundS) ?? 0,
  };
}

function adminKubeConfig(pipeline: LocalPipeline): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(pipeline.controlPlane.info.adminKubeconfig);
  return kc;
}

/** One arm: its own Karpenter (the NodePool as that arm deploys it), `runs` pods one after the other, then everything it launched removed. */
async function runArm(pipeline: LocalPipeline, timeline: ScaleFromZeroTimeline, arm: Arm, options: ScaleFromZeroOptions, log: (m: string) => void): Promise<{ runs: ScaleFromZeroStages[]; karpenter: Karpenter }> {
  const { core } = pipeline.clients;
  const karpenter = await startKarpenter({
    binaries: await ensureKarpenterBinaries(log),
    kubeConfig: adminKubeConfig(pipeline),
    kubeconfigPath: pipeline.controlPlane.info.adminKubeconfig,
    workDir: pipeline.logDir,
    ec2: pipeline.clients.ec2,
    motoUrl: pipeline.moto.url,
    clusterName: pipeline.config.clusterName,
    nodePool: arm.nodePool,
  });
  const runs: ScaleFromZeroStages[] = [];
  try {
    for (let i = 0; i < options.runs; i++) {
      const stages = await timeOnePod(core, karpenter, timeline, arm, i, options.gpus ?? 8);
      log(`[bench] scale-from-zero ${arm.name} ${i + 1}/${options.runs}: pending → bound ${stages.pendingToBoundS.toFixed(1)} s`);
      runs.push(stages);
    }
  } finally {
    await core.deleteCollectionNamespacedPod({ namespace: arm.namespace, gracePeriodSeconds: 0 });
    await karpenter.stop();
  }
  return { runs, karpenter };
}

export async function benchScaleFromZero(options: ScaleFromZeroOptions, log: (m: string) => void): Promise<ScaleFromZeroResult> {
  const teardown = new Teardown();
  try {
    // The stack's config with the start-up taint on: the labeler lifts it once the node's labels are right.
    const config = loadAppConfig({ cwd: process.cwd(), inline: { cluster: { gpuNodeStartupTaint: true } } });
    const pipeline = await startPipeline({ config, teardown, log: (m) => log(`[bench] scale-from-zero: ${m}`) });
    // The pipeline's own Karpenter gives way to each arm's.
    await pipeline.karpenter.stop();
    const { core } = pipeline.clients;
    await core.createNamespace({ body: { metadata: { name: 'sfz-ours', labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
    await core.createNamespace({ body: { metadata: { name: 'sfz-control' } } });
    const timeline = await ScaleFromZeroTimeline.start(adminKubeConfig(pipeline));
    teardown.add('the scale-from-zero watches', async () => timeline.stop());
    const control = await runArm(pipeline, timeline, { name: 'control', namespace: 'sfz-control', pod: controlPod, nodePool: { taints: [GPU_TAINT] }, schedulerLog: join(pipeline.logDir, 'default-scheduler.log') }, options, log);
    const ours = await runArm(pipeline, timeline, {
        name: 'ours',
        namespace: 'sfz-ours',
        pod: oursPod,
        nodePool: { taints: [GPU_TAINT], startupTaints: [STARTUP_TAINT] },
        schedulerLog: join(pipeline.logDir, `${config.scheduler.name}.log`),
      }, options, log);
    const oursMedians = medians(ours.runs);
    const controlMedians = medians(control.runs);
    return {
      ours: { runs: ours.runs, medians: oursMedians },
      control: { runs: control.runs, medians: controlMedians },
      addedOverControlMedianS: seconds((oursMedians.pendingToBoundS - controlMedians.pendingToBoundS) * 1000),
      instanceType: ours.karpenter.instanceTypes.find((t) => t.labels[KARPENTER_GPU_NAME_LABEL] === GPU_NAME)?.kwok.name,
    };
  } finally {
    await teardown.run(log);
  }
}
