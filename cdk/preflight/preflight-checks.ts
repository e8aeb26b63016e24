// The preflight's judgement: what the cluster runs (cluster-facts.ts, and EKS's
// answer, eks-facts.ts) against what the configuration would deploy. Pure: each
// finding names the config key or the action that resolves it.
import { KUBERNETES_VERSIONS, type AppConfig } from '../app-config/app-config';
import { gpuTolerations } from '../lib/admission/gpu-intent-policies';
import { GPU_RESOURCE, KARPENTER_LABEL, NODE_LABEL, NVIDIA_DRA_DRIVER } from '../../lambdas/scheduling/keys';
import { formatUsd, stackCost, DEFAULT_GPU_PODS_SCHEDULED_PER_DAY, type ClusterSize } from '../cost/stack-cost';
import { isUnreadable, PART_OF_STACK, type ClusterFacts, type NodeFacts, type NodePoolFacts, type Read, type WorkloadFacts } from './cluster-facts';
import type { EksLookup } from './eks-facts';

export type Severity = 'blocker' | 'warning' | 'ok' | 'info';

export interface Finding {
  readonly severity: Severity;
  /** What was checked, in two or three words. */
  readonly topic: string;
  readonly message: string;
  /** The config key (with the value to set) or the action that resolves it. */
  readonly resolve?: string;
}

const finding = (severity: Severity, topic: string, message: string, resolve?: string): Finding => ({ severity, topic, message, ...(resolve === undefined ? {} : { resolve }) });
const unreadable = (topic: string, what: string, value: { unreadable: string }): Finding => finding('warning', topic, `could not read ${what} (${value.unreadable}); not checked`, 'run the preflight as an identity that may list them');

const CRD = {
  gpuOperator: 'clusterpolicies.nvidia.com',
  cloudWatchAgent: 'amazoncloudwatchagents.cloudwatch.aws.amazon.com',
  kueue: 'clusterqueues.kueue.x-k8s.io',
} as const;
const CLOUDWATCH_NAMESPACE = 'amazon-cloudwatch';
const NODE_MONITORING_AGENT = 'eks-node-monitoring-agent';
const ACCELERATED_HARDWARE_READY = 'AcceleratedHardwareReady';
const AUTO_MODE_COMPUTE = { key: 'eks.amazonaws.com/compute-type', value: 'auto' } as const;
const NODE_GROUP_LABEL = 'eks.amazonaws.com/nodegroup';
const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const EKS_DOC = 'docs/existing-cluster-karpenter.md';

/** The scheduler Deployment this stack applies, if the stack is deployed already. */
function stackDeployed(config: AppConfig, workloads: readonly WorkloadFacts[]): boolean {
  return workloads.some((w) => w.kind === 'Deployment' && w.name === config.scheduler.name && w.namespace === config.scheduler.namespace && w.labels[PART_OF_STACK.key] === PART_OF_STACK.value);
}

const has = (read: Read<readonly string[]>, name: string): boolean => !isUnreadable(read) && read.includes(name);
const describeWorkload = (w: WorkloadFacts): string => `${w.kind} ${w.namespace}/${w.name}`;

function versionFindings(config: AppConfig, facts: ClusterFacts): Finding[] {
  const topic = 'Kubernetes version';
  const running = facts.version.minor;
  if (!(KUBERNETES_VERSIONS as readonly string[]).includes(running)) {
    return [finding('blocker', topic, `the cluster runs ${facts.version.gitVersion}; the stack supports ${KUBERNETES_VERSIONS.join(' and ')}`, `upgrade the cluster to ${KUBERNETES_VERSIONS.at(-1) ?? ''}`)];
  }
  const out: Finding[] = [];
  if (running !== config.kubernetesVersion) {
    out.push(finding('blocker', topic, `the cluster runs ${running} (${facts.version.gitVersion}) but the config says ${config.kubernetesVersion}: the scheduler image and the admission policies follow the config`, `kubernetesVersion: "${running}"`));
  } else {
    out.push(finding('ok', topic, `${facts.version.gitVersion}, as configured`));
  }
  if (running === '1.35') {
    out.push(
      finding(
        'warning',
        topic,
        '1.35 has no MutatingAdmissionPolicy (beta and off on EKS): the namespace opt-in and the annotation-to-affinity translation are not deployed; pods opt in with schedulerName, the GPU toleration and node affinity written in their manifests',
        'upgrade to 1.36 for the namespace opt-in',
      ),
    );
  }
  return out;
}

function eksFindings(config: AppConfig, eks: EksLookup | undefined): Finding[] {
  const topic = 'EKS cluster';
  if (eks === undefined) return [];
  if ('failed' in eks) return [finding('warning', topic, `EKS not asked (${eks.failed}): access entries and the VPC settings not checked`, 'give AWS credentials and a region (--region or AWS_REGION)')];
  if ('notFound' in eks) {
    return config.cluster.mode === 'existing'
      ? [finding('blocker', topic, `EKS has no cluster named ${eks.notFound} in this account and region`, 'clusterName (or --region)')]
      : [finding('ok', topic, `no cluster named ${eks.notFound} yet: the stack creates it`)];
  }
  const cluster = eks.found;
  if (config.cluster.mode === 'new') {
    return [finding('blocker', topic, `a cluster named ${cluster.name} exists already, and the config creates a new one`, 'cluster.mode: existing (and its keys), or another clusterName')];
  }
  const out: Finding[] = [];
  const mode = cluster.authenticationMode;
  if (mode === undefined) {
    out.push(finding('warning', 'EKS access entries', 'EKS did not report the authentication mode; the stack needs access entries (mode API or API_AND_CONFIG_MAP)', `aws eks describe-cluster --name ${cluster.name} --query cluster.accessConfig`));
  } else if (mode === 'CONFIG_MAP') {
    out.push(finding('blocker', 'EKS access entries', 'the authentication mode is CONFIG_MAP: the stack gives each Lambda its Kubernetes identity through access entries', `aws eks update-cluster-config --name ${cluster.name} --access-config authenticationMode=API_AND_CONFIG_MAP`));
  } else {
    out.push(finding('ok', 'EKS access entries', `authentication mode ${mode}`));
  }
  const existing = config.cluster;
  if (cluster.vpcId !== undefined && cluster.vpcId !== existing.vpcId) {
    out.push(finding('blocker', topic, `the cluster is in ${cluster.vpcId}, the config names ${existing.vpcId}`, `cluster.existing.vpcId: ${cluster.vpcId}`));
  }
  if (cluster.clusterSecurityGroupId !== undefined && cluster.clusterSecurityGroupId !== existing.clusterSecurityGroupId) {
    out.push(finding('blocker', topic, `the cluster security group is ${cluster.clusterSecurityGroupId}, the config names ${existing.clusterSecurityGroupId}`, `cluster.existing.clusterSecurityGroupId: ${cluster.clusterSecurityGroupId}`));
  }
  const foreign = existing.privateSubnetIds.filter((id) => !cluster.subnetIds.includes(id));
  if (foreign.length > 0 && cluster.subnetIds.length > 0) {
    out.push(finding('warning', topic, `subnets ${foreign.join(', ')} are not the cluster's (${cluster.subnetIds.join(', ')}); they must be private subnets of its VPC that reach the API endpoint`, 'cluster.existing.privateSubnetIds'));
  }
  return out;
}

function isGpuPool(pool: NodePoolFacts): boolean {
  return (
    pool.gpuLimit !== undefined ||
    pool.taints.some((t) => t.key === GPU_RESOURCE) ||
    pool.requirements.some((r) => /instance-gpu-/.test(r.key) || (/instance-family$/.test(r.key) && r.operator === 'In' && r.values.length > 0 && r.values.every((v) => /^(g|p|gr)\d/.test(v))))
  );
}

function nvidiaOnly(pool: NodePoolFacts): boolean {
  return pool.requirements.some((r) => (/instance-gpu-manufacturer$/.test(r.key) && r.operator === 'In' && r.values.every((v) => v.toLowerCase() === 'nvidia')) || (/instance-gpu-name$/.test(r.key) && r.operator === 'In'));
}

const EFFECT_IN_CONFIG: Readonly<Record<string, string>> = { NoSchedule: 'NO_SCHEDULE', PreferNoSchedule: 'PREFER_NO_SCHEDULE', NoExecute: 'NO_EXECUTE' };

function nodePoolFindings(config: AppConfig, facts: ClusterFacts): Finding[] {
  const topic = 'GPU NodePools';
  if (config.cluster.mode !== 'existing') return [];
  const capacity = config.cluster.gpuCapacity;
  if (isUnreadable(facts.nodePools)) return capacity === 'node-groups' ? [] : [unreadable(topic, 'Karpenter NodePools', facts.nodePools)];
  if (facts.nodePools === 'absent') {
    return capacity === 'node-groups'
      ? []
      : [finding('blocker', topic, `cluster.existing.gpuCapacity is ${capacity}, but the cluster serves no Karpenter NodePool (karpenter.sh/v1)`, 'cluster.existing.gpuCapacity: node-groups, or install Karpenter')];
  }
  const gpuPools = facts.nodePools.filter(isGpuPool);
  if (gpuPools.length === 0) {
    return capacity === 'node-groups' ? [] : [finding('warning', topic, 'no NodePool launches GPU instances yet: no GPU node will come for pending GPU pods', `create one (${EKS_DOC}#nodepool-requirements)`)];
  }
  const tolerated = gpuTolerations(config.admission.gpuTaints);
  const out: Finding[] = [];
  if (capacity === 'node-groups') out.push(finding('warning', topic, `GPU NodePools exist (${gpuPools.map((p) => p.name).join(', ')}) but the config says the GPU nodes come from node groups`, 'cluster.existing.gpuCapacity: karpenter'));
  for (const pool of gpuPools) {
    const taints = pool.taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
    const missing = taints.filter((t) => !tolerated.some((g) => g.key === t.key && g.effect === t.effect));
    const shape = `requirements ${pool.requirements.map((r) => `${r.key} ${r.operator} [${r.values.join(',')}]`).join('; ') || 'none'}; taints ${pool.taints.map((t) => `${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}`).join(', ') || 'none'}`;
    if (missing.length > 0) {
      const entries = missing.map((t) => `{key: ${t.key}, effect: ${EFFECT_IN_CONFIG[t.effect] ?? t.effect}}`).join(', ');
      out.push(
        finding(
          'warning',
          topic,
          `NodePool ${pool.name} (${shape}): opted-in pods get no toleration of ${missing.map((t) => `${t.key}:${t.effect}`).join(', ')}, so they never land there`,
          `admission.gpuTaints: add ${entries} (or leave it out on purpose, e.g. a canary pool)`,
        ),
      );
    } else {
      out.push(finding('ok', topic, `NodePool ${pool.name} (${shape}): its taints are tolerated by the opt-in`));
    }
    if (!nvidiaOnly(pool)) {
      out.push(finding('warning', topic, `NodePool ${pool.name} does not require NVIDIA GPUs: it may launch other makers' GPU types (g4ad), where no NVIDIA pod is placed`, `add the requirement karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia] (${EKS_DOC}#nodepool-requirements)`));
    }
  }
  return out;
}

function addonFindings(config: AppConfig, facts: ClusterFacts): Finding[] {
  if (isUnreadable(facts.workloads)) return [unreadable('add-ons', 'DaemonSets and Deployments', facts.workloads)];
  const workloads = facts.workloads;
  const ours = stackDeployed(config, workloads);
  const out: Finding[] = [];
  const autoMode = !isUnreadable(facts.nodes) && facts.nodes.some((n) => n.labels[AUTO_MODE_COMPUTE.key] === AUTO_MODE_COMPUTE.value);

  // Device plugin / GPU Operator.
  const operator = has(facts.crds, CRD.gpuOperator) || workloads.some((w) => w.namespace === 'gpu-operator' || /gpu-operator/.test(w.name));
  const plugins = workloads.filter((w) => w.kind === 'DaemonSet' && (/nvidia-device-plugin/.test(w.name) || w.images.some((i) => /k8s-device-plugin|nvidia-device-plugin/.test(i))));
  const foreignPlugins = plugins.filter((w) => !(ours && w.namespace === 'kube-system' && w.labels['app.kubernetes.io/instance'] === 'nvidia-device-plugin'));
  const seen = [operator ? 'the GPU Operator' : '', ...foreignPlugins.map(describeWorkload), autoMode ? 'EKS Auto Mode nodes' : ''].filter((s) => s !== '');
  if (seen.length > 0 && config.addons.nvidiaDevicePlugin.enabled) {
    out.push(finding('blocker', 'device plugin', `${seen.join(', ')} already advertise nvidia.com/gpu; the stack would install a second device plugin on the same GPUs`, 'addons.nvidiaDevicePlugin.enabled: false'));
  } else if (seen.length > 0) {
    out.push(finding('ok', 'device plugin', `${seen.join(', ')} advertise nvidia.com/gpu; the stack installs none`));
  } else if (!config.addons.nvidiaDevicePlugin.enabled) {
    out.push(finding('warning', 'device plugin', 'no device plugin or GPU Operator found, and the config installs none: nothing will advertise nvidia.com/gpu', 'addons.nvidiaDevicePlugin.enabled: true'));
  } else {
    out.push(finding('ok', 'device plugin', 'none found; the stack installs NVIDIA\'s'));
  }

  // CloudWatch add-on.
  const agents = workloads.filter((w) => w.namespace === CLOUDWATCH_NAMESPACE);
  const cloudWatch = has(facts.crds, CRD.cloudWatchAgent) || has(facts.namespaces, CLOUDWATCH_NAMESPACE) || agents.length > 0;
  if (cloudWatch && config.addons.cloudWatchObservability.enabled && !ours) {
    out.push(
      finding(
        'blocker',
        'CloudWatch add-on',
        `amazon-cloudwatch-observability (or its agent) is installed (${[...agents.map(describeWorkload), has(facts.crds, CRD.cloudWatchAgent) ? `CRD ${CRD.cloudWatchAgent}` : ''].filter((s) => s !== '').join(', ') || `namespace ${CLOUDWATCH_NAMESPACE}`}); CloudFormation cannot adopt an existing add-on and the deploy would fail`,
        'addons.cloudWatchObservability.enabled: false',
      ),
    );
  } else if (cloudWatch) {
    out.push(finding('ok', 'CloudWatch add-on', 'installed: the reconciler and the dashboard read the GPU metrics it publishes'));
  } else if (!config.addons.cloudWatchObservability.enabled) {
    out.push(finding('warning', 'CloudWatch add-on', 'not installed and not enabled: no Container Insights GPU utilization, so the utilization score and the dashboard\'s GPU utilization stay empty', 'addons.cloudWatchObservability.enabled: true'));
  }

  // DRA driver.
  if (isUnreadable(facts.dra)) out.push(finding('info', 'DRA driver', `ResourceSlices not read (${facts.dra.unreadable})`));
  else if (facts.dra.drivers.includes(NVIDIA_DRA_DRIVER) || facts.dra.deviceClasses.includes(NVIDIA_DRA_DRIVER)) out.push(finding('info', 'DRA driver', 'NVIDIA\'s DRA driver publishes GPUs: the extender counts them (docs/extender.md#gpus-from-dra)'));
  else out.push(finding('info', 'DRA driver', 'no NVIDIA DRA driver: GPUs come from the device plugin'));

  // Kueue.
  const kueueImage = workloads.filter((w) => w.kind === 'Deployment').flatMap((w) => w.images).find((i) => /\/kueue(:|@)/.test(i));
  const kueueVersion = kueueImage?.split(':').at(-1) ?? 'version unknown';
  if (has(facts.crds, CRD.kueue)) {
    out.push(
      config.addons.kueue.enabled && !ours
        ? finding('blocker', 'Kueue', `Kueue runs already (${kueueVersion}); the stack would install a second one`, 'addons.kueue.enabled: false (your Kueue admits the jobs; see docs/kueue.md)')
        : finding('info', 'Kueue', `installed (${kueueVersion}): jobs that name a queue are admitted whole; the gpu-scheduler places their pods`),
    );
  } else {
    out.push(finding('info', 'Kueue', config.addons.kueue.enabled ? 'not installed; the stack installs it' : 'not installed'));
  }

  // Node monitoring agent.
  const agent = workloads.some((w) => w.kind === 'DaemonSet' && w.name === NODE_MONITORING_AGENT) || (!isUnreadable(facts.nodes) && facts.nodes.some((n) => n.conditionTypes.includes(ACCELERATED_HARDWARE_READY)));
  out.push(finding('info', 'node monitoring agent', agent ? `present: GPU nodes report ${ACCELERATED_HARDWARE_READY}` : 'absent: GPU faults show only as fewer allocatable GPUs (EKS add-on eks-node-monitoring-agent adds node conditions)'));
  return out;
}

function schedulerFindings(config: AppConfig, facts: ClusterFacts): Finding[] {
  const { name, namespace, leaseName } = config.scheduler;
  const out: Finding[] = [];
  if (isUnreadable(facts.namespaces)) out.push(unreadable('scheduler', 'namespaces', facts.namespaces));
  else if (!facts.namespaces.includes(namespace)) out.push(finding('blocker', 'scheduler', `namespace ${namespace} does not exist`, `scheduler.namespace, or kubectl create namespace ${namespace}`));

  const workloads = isUnreadable(facts.workloads) ? [] : facts.workloads;
  const ours = stackDeployed(config, workloads);
  const clashes: string[] = [];
  for (const w of workloads) {
    if (w.kind === 'Deployment' && w.name === name && w.labels[PART_OF_STACK.key] !== PART_OF_STACK.value) clashes.push(`Deployment ${w.namespace}/${w.name}`);
  }
  if (isUnreadable(facts.schedulerConfigs)) out.push(unreadable('scheduler', 'ConfigMaps', facts.schedulerConfigs));
  else {
    for (const c of facts.schedulerConfigs) {
      const isOurs = ours && c.namespace === namespace && c.name === `${name}-config`;
      if (!isOurs && c.profiles.includes(name)) clashes.push(`a KubeSchedulerConfiguration with profile ${name} (ConfigMap ${c.namespace}/${c.name})`);
    }
  }
  if (!isUnreadable(facts.schedulerLease) && facts.schedulerLease !== undefined && !ours) {
    clashes.push(`lease ${namespace}/${leaseName}${facts.schedulerLease.holder === undefined ? '' : ` (held by ${facts.schedulerLease.holder})`}`);
  }
  if (clashes.length > 0) {
    out.push(finding('blocker', 'scheduler name', `another scheduler uses the name ${name}: ${clashes.join('; ')}. Two schedulers would place the same pods`, 'scheduler.name (and scheduler.leaseName) to a name of its own'));
  } else {
    out.push(finding('ok', 'scheduler name', ours ? `${name} is this stack's (deployed already)` : `no other scheduler is named ${name}`));
  }
  return [...out, ...placementFindings(config, facts)];
}

function matches(node: NodeFacts, selector: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector).every(([key, value]) => node.labels[key] === value);
}

function placementFindings(config: AppConfig, facts: ClusterFacts): Finding[] {
  const topic = 'scheduler placement';
  if (isUnreadable(facts.nodes)) return [unreadable(topic, 'nodes', facts.nodes)];
  const selector = config.scheduler.nodeSelector;
  if (selector === undefined) {
    const karpenterNodes = facts.nodes.filter((n) => n.gpus === 0 && n.labels[NODEPOOL_LABEL] !== undefined);
    if (karpenterNodes.length === 0) return [];
    const groups = [...new Set(facts.nodes.filter((n) => n.gpus === 0).map((n) => n.labels[NODE_GROUP_LABEL]).filter((g): g is string => g !== undefined))];
    return [
      finding(
        'warning',
        topic,
        `no scheduler.nodeSelector: the scheduler may land on one of ${karpenterNodes.length} Karpenter-managed node(s), which consolidation removes`,
        groups.length > 0 ? `scheduler.nodeSelector: {${NODE_GROUP_LABEL}: ${groups[0] ?? ''}}` : 'scheduler.nodeSelector: labels of nodes Karpenter does not manage',
      ),
    ];
  }
  const chosen = facts.nodes.filter((n) => matches(n, selector));
  const text = Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(',');
  if (chosen.length === 0) return [finding('blocker', topic, `no node matches scheduler.nodeSelector ${text}: the scheduler would stay Pending and no GPU pod would be placed`, 'scheduler.nodeSelector')];
  const untolerated = chosen.filter((n) => n.taints.some((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !config.scheduler.tolerations.some((tol) => tol.key === t.key || (tol.key === undefined && tol.operator === 'Exists'))));
  const out: Finding[] = [];
  if (untolerated.length === chosen.length) out.push(finding('blocker', topic, `every node matching ${text} has a taint the scheduler does not tolerate (${chosen[0]?.taints.map((t) => `${t.key}:${t.effect}`).join(', ') ?? ''})`, 'scheduler.tolerations'));
  else if (chosen.some((n) => n.gpus > 0)) out.push(finding('warning', topic, `${text} matches GPU nodes too: a scheduler pod there keeps the node from being removed`, 'scheduler.nodeSelector: labels of non-GPU nodes'));
  else if (chosen.some((n) => n.labels[NODEPOOL_LABEL] !== undefined)) out.push(finding('warning', topic, `${text} matches Karpenter-managed nodes, which consolidation removes`, 'scheduler.nodeSelector: a managed node group'));
  else out.push(finding('ok', topic, `${chosen.length} node(s) match ${text}`));
  return out;
}

/** A node with GPUs: allocatable, or the labels of a GPU node whose device plugin has not reported yet. */
export function isGpuNode(node: NodeFacts): boolean {
  return node.gpus > 0 || node.labels[KARPENTER_LABEL.gpuCount] !== undefined || node.labels[NODE_LABEL.gpuCount] !== undefined || node.labels['nvidia.com/gpu.count'] !== undefined;
}

/** The size the cost is computed at: the GPU nodes and opted-in pods found. */
export function measuredSize(facts: ClusterFacts | undefined): ClusterSize {
  const gpuNodes = facts === undefined || isUnreadable(facts.nodes) ? 0 : facts.nodes.filter(isGpuNode).length;
  const optedInPods = facts === undefined || isUnreadable(facts.optedInPods) ? 0 : facts.optedInPods;
  return { gpuNodes, optedInPods, gpuPodsScheduledPerDay: DEFAULT_GPU_PODS_SCHEDULED_PER_DAY };
}

function costFinding(config: AppConfig, size: ClusterSize, configFile: string | undefined): Finding {
  const cost = stackCost(config, size);
  const command = `npm run cost --${configFile === undefined ? '' : ` --config ${configFile}`} --gpu-nodes ${size.gpuNodes} --pods ${size.optedInPods}`;
  return finding('info', 'monthly cost', `about $${formatUsd(cost.totalUsd)} a month at ${size.gpuNodes} GPU nodes and ${size.optedInPods} opted-in pods (${DEFAULT_GPU_PODS_SCHEDULED_PER_DAY.toLocaleString('en-US')} GPU pods scheduled a day)`, `${command} shows each line`);
}

export interface PreflightInput {
  readonly config: AppConfig;
  readonly configFile: string | undefined;
  /** undefined for a config that creates its cluster: there is none to read. */
  readonly cluster: ClusterFacts | undefined;
  /** undefined when EKS was not asked (--no-aws). */
  readonly eks: EksLookup | undefined;
}

export function preflightFindings(input: PreflightInput): Finding[] {
  const { config, cluster } = input;
  const out = [...eksFindings(config, input.eks)];
  if (cluster !== undefined) {
    out.push(...versionFindings(config, cluster), ...nodePoolFindings(config, cluster), ...addonFindings(config, cluster), ...schedulerFindings(config, cluster));
  } else {
    out.push(finding('info', 'cluster', 'the config creates a new cluster: the checks of a running cluster apply to cluster.mode: existing'));
  }
  out.push(costFinding(config, measuredSize(cluster), input.configFile));
  return out;
}
