// A generated `kubectl get nodes,pods -A -o json` dump for the simulator's
// benchmark and its differential test: GPU and CPU node groups over three
// zones, some tainted for GPUs, cordoned or tainted PreferNoSchedule; bound
// pods of several schedulers filling them part way; pending pods for the
// gpu-scheduler with tolerations, node selectors, preferred node affinity,
// pod (anti-)affinity, topology spread, host ports and GPU counts, and a few
// for the default scheduler. Seeded, so a seed is always the same dump.
import { createRng, type Rng } from '../trace/seeded-rng';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

export interface DumpSize {
  readonly nodes: number;
  /** Bound and pending together. */
  readonly pods: number;
  /** Share of the pods that are pending (default 0.1). */
  readonly pendingShare?: number;
  readonly seed: number;
  /** The pods' namespaces (default ml and web). */
  readonly namespaces?: readonly string[];
}

export interface GeneratedDump {
  readonly nodes: Record<string, unknown>[];
  readonly pods: Record<string, unknown>[];
}

interface NodeGroup {
  readonly instanceType: string;
  readonly gpus: number;
  readonly model?: string;
  readonly memoryMiB?: number;
  readonly cpu: number;
  readonly memoryGi: number;
  readonly weight: number;
}

const GROUPS: readonly NodeGroup[] = [
  { instanceType: 'p4d.24xlarge', gpus: 8, model: 'A100', memoryMiB: 40960, cpu: 96, memoryGi: 1152, weight: 3 },
  { instanceType: 'g5.12xlarge', gpus: 4, model: 'A10G', memoryMiB: 23028, cpu: 48, memoryGi: 192, weight: 3 },
  { instanceType: 'g5.xlarge', gpus: 1, model: 'A10G', memoryMiB: 23028, cpu: 4, memoryGi: 16, weight: 2 },
  { instanceType: 'm5.4xlarge', gpus: 0, cpu: 16, memoryGi: 64, weight: 2 },
];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const APPS = ['web', 'api', 'cache', 'train', 'infer', 'etl'];
const GPU_TAINT = { key: GPU_RESOURCE, value: 'true', effect: 'NoSchedule' };

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng.next() * items.length)] as T;
}

function weighted(rng: Rng): NodeGroup {
  const total = GROUPS.reduce((s, g) => s + g.weight, 0);
  let r = rng.next() * total;
  for (const g of GROUPS) if ((r -= g.weight) < 0) return g;
  return GROUPS[0] as NodeGroup;
}

function node(name: string, group: NodeGroup, rng: Rng): Record<string, unknown> {
  const zone = pick(rng, ZONES);
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, 'node.kubernetes.io/instance-type': group.instanceType };
  if (group.model !== undefined) Object.assign(labels, { 'gpu.nvidia.com/model': group.model, 'gpu.nvidia.com/memory': String(group.memoryMiB), 'gpu.nvidia.com/count': String(group.gpus) });
  const taints: Record<string, string>[] = [];
  if (group.gpus > 0 && rng.next() < 0.5) taints.push(GPU_TAINT);
  if (rng.next() < 0.05) taints.push({ key: 'maintenance', value: 'soon', effect: 'PreferNoSchedule' });
  const allocatable: Record<string, string> = { cpu: String(group.cpu), memory: `${group.memoryGi}Gi`, pods: '110', 'ephemeral-storage': '100Gi' };
  if (group.gpus > 0) allocatable[GPU_RESOURCE] = String(group.gpus);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: { ...(taints.length > 0 ? { taints } : {}), ...(rng.next() < 0.03 ? { unschedulable: true } : {}) },
    status: { capacity: allocatable, allocatable },
  };
}

interface PodShape {
  readonly gpus: number;
  readonly cpu: string;
  readonly memory: string;
}

function shape(rng: Rng, gpu: boolean): PodShape {
  if (!gpu) return { gpus: 0, cpu: pick(rng, ['250m', '500m', '1', '2']), memory: pick(rng, ['512Mi', '1Gi', '2Gi', '4Gi']) };
  const gpus = pick(rng, [1, 1, 1, 2, 2, 4, 8]);
  return { gpus, cpu: String(gpus * 4), memory: `${gpus * 16}Gi` };
}

function container(s: PodShape, hostPort: number | undefined): Record<string, unknown> {
  return {
    name: 'main',
    image: 'registry.example/app:1',
    resources: { requests: { cpu: s.cpu, memory: s.memory }, limits: s.gpus > 0 ? { [GPU_RESOURCE]: String(s.gpus) } : {} },
    ...(hostPort === undefined ? {} : { ports: [{ containerPort: 8080, hostPort, protocol: 'TCP' }] }),
  };
}

const TOLERATE_GPU = [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }];

function zoneTerm(app: string, key: string): Record<string, unknown> {
  return { labelSelector: { matchLabels: { app } }, topologyKey: key };
}

/** The scheduling constraints of a pending pod, drawn so each kind appears in a good share of the pods. */
function constraints(rng: Rng, app: string, gpus: number, boundApps: readonly string[]): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (gpus > 0 && rng.next() < 0.85) spec.tolerations = TOLERATE_GPU;
  if (rng.next() < 0.15) spec.nodeSelector = { 'topology.kubernetes.io/zone': pick(rng, ZONES) };
  const affinity: Record<string, unknown> = {};
  if (rng.next() < 0.15) {
    affinity.nodeAffinity = {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: pick(rng, [10, 50, 100]), preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [pick(rng, ZONES)] }] } }],
    };
  }
  if (rng.next() < 0.12) affinity.podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [zoneTerm(app, 'kubernetes.io/hostname')] };
  // Required affinity only to apps already bound: a pod that waits for a later pod is placed on kube-scheduler's retry, whose timing the two paths do not share.
  if (rng.next() < 0.08 && boundApps.length > 0) affinity.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [zoneTerm(pick(rng, boundApps), 'topology.kubernetes.io/zone')] };
  else if (rng.next() < 0.1) affinity.podAffinity = { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 20, podAffinityTerm: zoneTerm(pick(rng, APPS), 'topology.kubernetes.io/zone') }] };
  if (Object.keys(affinity).length > 0) spec.affinity = affinity;
  if (rng.next() < 0.15) {
    spec.topologySpreadConstraints = [
      { maxSkew: pick(rng, [1, 2]), topologyKey: pick(rng, ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']), whenUnsatisfiable: pick(rng, ['DoNotSchedule', 'ScheduleAnyway']), labelSelector: { matchLabels: { app } } },
    ];
  }
  return spec;
}

function pod(name: string, namespace: string, app: string, spec: Record<string, unknown>, phase: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { app } }, spec, status: { phase } };
}

export function generateDump(size: DumpSize): GeneratedDump {
  const rng = createRng(size.seed);
  const namespaces = size.namespaces ?? ['ml', 'web'];
  const nodes = Array.from({ length: size.nodes }, (_, i) => node(`node-${String(i).padStart(5, '0')}`, weighted(rng), rng));
  const pendingCount = Math.round(size.pods * (size.pendingShare ?? 0.1));
  const boundCount = size.pods - pendingCount;
  // Bound pods fill each node to about half, round-robin, within what it has.
  const free = nodes.map((n) => {
    const allocatable = (n.status as { allocatable: Record<string, string> }).allocatable;
    return { name: (n.metadata as { name: string }).name, cpu: Number(allocatable.cpu) * 0.5, gpus: Number(allocatable[GPU_RESOURCE] ?? 0) * 0.6, pods: 50 };
  });
  const pods: Record<string, unknown>[] = [];
  const boundApps = new Set<string>();
  for (let i = 0; i < boundCount; i++) {
    const target = free[i % free.length] as (typeof free)[number];
    const gpu = target.gpus >= 1 && rng.next() < 0.5;
    let s = shape(rng, gpu);
    if (s.gpus > target.gpus) s = { gpus: 0, cpu: '250m', memory: '512Mi' };
    const cpu = Number(s.cpu.replace('m', '')) / (s.cpu.endsWith('m') ? 1000 : 1);
    if (cpu > target.cpu || target.pods <= 0) continue;
    target.cpu -= cpu;
    target.gpus -= s.gpus;
    target.pods -= 1;
    const app = pick(rng, APPS);
    boundApps.add(app);
    const hostPort = rng.next() < 0.05 ? 9100 : undefined;
    const schedulerName = s.gpus > 0 ? 'gpu-scheduler' : 'default-scheduler';
    pods.push(pod(`bound-${i}`, pick(rng, namespaces), app, { schedulerName, nodeName: target.name, tolerations: TOLERATE_GPU, containers: [container(s, hostPort)] }, 'Running'));
  }
  const apps = [...boundApps];
  for (let i = 0; i < pendingCount; i++) {
    const s = shape(rng, rng.next() < 0.8);
    const app = pick(rng, APPS);
    const hostPort = rng.next() < 0.05 ? 9100 : undefined;
    // One pending pod in 20 is another scheduler's, which the simulator must skip.
    const schedulerName = i % 20 === 7 ? 'default-scheduler' : 'gpu-scheduler';
    pods.push(pod(`pending-${i}`, pick(rng, namespaces), app, { schedulerName, containers: [container(s, hostPort)], ...constraints(rng, app, s.gpus, apps) }, 'Pending'));
  }
  return { nodes, pods };
}
