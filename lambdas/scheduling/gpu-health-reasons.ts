/**
 * The words the GPU health signals speak, in one place: the node conditions
 * and reasons of the EKS node monitoring agent
 * (aws/eks-node-monitoring-agent, pkg/conditions and pkg/reasons), the device
 * taints of NVIDIA's DRA driver (kubernetes-sigs/dra-driver-nvidia-gpu,
 * cmd/gpu-kubelet-plugin/device_health.go), and the bounded classes they are
 * counted under in metrics.
 */
import { NVIDIA_DRA_DRIVER } from './keys';

/** Node conditions the node monitoring agent writes (it never taints the node). */
export const AGENT_CONDITION = {
  /** GPU (or Neuron) hardware: False on a fatal fault, with the fault as its reason. */
  acceleratedHardwareReady: 'AcceleratedHardwareReady',
  networkingReady: 'NetworkingReady',
  kernelReady: 'KernelReady',
  storageReady: 'StorageReady',
  containerRuntimeReady: 'ContainerRuntimeReady',
} as const;

/** The agent's conditions besides the GPU's and the network's: False means the node is due for repair (replacement), not that its GPUs are bad. */
export const REPAIR_CONDITIONS: readonly string[] = [AGENT_CONDITION.kernelReady, AGENT_CONDITION.storageReady, AGENT_CONDITION.containerRuntimeReady];

/** Every condition the library reads from a Node (the extender's protobuf reader keeps these, the simulator's --exact path copies them). */
export const HEALTH_CONDITIONS: readonly string[] = Object.values(AGENT_CONDITION);

/** Device taint keys of NVIDIA's DRA driver (NoSchedule when fatal, None when not; `unmonitored` always None). */
export const DRA_TAINT = {
  xid: `${NVIDIA_DRA_DRIVER}/xid`,
  gpuLost: `${NVIDIA_DRA_DRIVER}/gpu-lost`,
  unmonitored: `${NVIDIA_DRA_DRIVER}/unmonitored`,
} as const;

/**
 * Why GPUs are unhealthy or degraded, bounded so that a metric by class has a
 * fixed set of dimension values whatever the agent and the driver add:
 * `NotReported` is a GPU condition the agent has stopped updating (Unknown),
 * `DeviceCount` a node that hands out fewer GPUs than it has.
 */
export const GPU_HEALTH_CLASSES = [
  'Xid',
  'Memory',
  'Interconnect',
  'ThermalPower',
  'Diagnostics',
  'DeviceCount',
  'GpuLost',
  'Collective',
  'Unmonitored',
  'NotReported',
  'NodeRepair',
  'Network',
  'Other',
] as const;
export type GpuHealthClass = (typeof GPU_HEALTH_CLASSES)[number];

/** The agent's GPU reasons by class, fatal (condition False) and warning (event only) alike; `%d` reasons as patterns. */
const AGENT_REASON_CLASSES: readonly (readonly [RegExp, GpuHealthClass])[] = [
  [/^NvidiaXID\d+(Error|Warning)$/, 'Xid'],
  [/^Nvidia(DoubleBitError|PageRetirement)$/, 'Memory'],
  [/^(Nvidia(NVLinkError|FabricError|PCIeError)|FabricManagerNotRunning)$/, 'Interconnect'],
  [/^Nvidia(ThermalError|PowerError)$/, 'ThermalPower'],
  [/^DCGM(DiagnosticFailure|Error|HealthCode\d+|FieldError\d+)$/, 'Diagnostics'],
  [/^NvidiaDeviceCountMismatch$/, 'DeviceCount'],
  [/^NvidiaNCCLError$/, 'Collective'],
];

/** The class of one of the agent's reasons (a condition's reason, or a warning event's). */
export function agentReasonClass(reason: string): GpuHealthClass {
  for (const [pattern, cls] of AGENT_REASON_CLASSES) if (pattern.test(reason)) return cls;
  return 'Other';
}

/** The class of one of the DRA driver's device taints. */
export function draTaintClass(key: string): GpuHealthClass {
  if (key === DRA_TAINT.xid) return 'Xid';
  if (key === DRA_TAINT.gpuLost) return 'GpuLost';
  if (key === DRA_TAINT.unmonitored) return 'Unmonitored';
  return 'Other';
}

/**
 * The agent's warning-level GPU reasons: it records them as Warning events on
 * the Node (never as a condition), each event's reason the condition type
 * (`AcceleratedHardwareReady`) and its message `<Reason>: <detail>`
 * (pkg/manager/node_exporter.go, Warning).
 */
const GPU_WARNING_REASON = /^(NvidiaXID\d+Warning|NvidiaPCIeError|NvidiaThermalError|NvidiaPowerError|NvidiaPageRetirement|NvidiaNCCLError|DCGMFieldError\d+|DCGMHealthCode\d+)$/;

/** A GPU warning as one Warning event on a Node reports it. */
export interface GpuWarning {
  /** The agent's reason, e.g. `NvidiaXID13Warning`. */
  readonly reason: string;
  readonly detail: string;
}

/**
 * The GPU warning a Node event carries, or undefined for any other event.
 * Read in the agent's shape (reason `AcceleratedHardwareReady`, message
 * `NvidiaXID13Warning: …`) and, as other tools write them, with the fault as
 * the event's own reason.
 */
export function gpuWarningOf(eventReason: string, message: string): GpuWarning | undefined {
  if (GPU_WARNING_REASON.test(eventReason)) return { reason: eventReason, detail: message };
  if (eventReason !== AGENT_CONDITION.acceleratedHardwareReady) return undefined;
  const cut = message.indexOf(':');
  const reason = (cut < 0 ? message : message.slice(0, cut)).trim();
  if (!GPU_WARNING_REASON.test(reason)) return undefined;
  return { reason, detail: cut < 0 ? '' : message.slice(cut + 1).trim() };
}
