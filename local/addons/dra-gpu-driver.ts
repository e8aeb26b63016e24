// A stand-in for NVIDIA's DRA driver (kubernetes-sigs dra-driver-nvidia-gpu):
// the DeviceClass it installs, with KEP-5004's extendedResourceName so plain
// nvidia.com/gpu requests are served from its devices, and the ResourceSlice
// its kubelet plugin publishes per node, shaped as the driver writes them
// (cmd/gpu-kubelet-plugin/deviceinfo.go: device `gpu-<minor>`, attributes
// `type`, `uuid`, `productName`, `brand`, `architecture`,
// `cudaComputeCapability`, `driverVersion`, `cudaDriverVersion`, capacity
// `memory` in bytes as a binary quantity; the kubelet plugin helper names the
// pool after the node). Without a kubelet nothing prepares the devices:
// kube-scheduler only needs these objects to allocate and bind.
import { randomUUID } from 'node:crypto';
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject, type V1Node } from '@kubernetes/client-node';
import { isKubeConflict, isKubeNotFound } from '../../lambdas/kube/kube-errors';
import { GPU_RESOURCE, NVIDIA_DRA_DRIVER } from '../../lambdas/scheduling/keys';

export const DRA_API = 'resource.k8s.io/v1';

/** One physical GPU as NVML reports it. */
export interface DraGpuModel {
  /** NVML's product name, e.g. `NVIDIA H100 80GB HBM3`. */
  productName: string;
  architecture: string;
  cudaComputeCapability: string;
  /** NVML's total memory in MiB, e.g. 81559 on an H100 80GB. */
  memoryMiB: number;
}

/** What NVML says of the GPUs of EC2's instance types (DESIGN.md: NVML totals). */
export const DRA_GPUS = {
  h100: { productName: 'NVIDIA H100 80GB HBM3', architecture: 'Hopper', cudaComputeCapability: '9.0.0', memoryMiB: 81559 },
  a100: { productName: 'NVIDIA A100-SXM4-40GB', architecture: 'Ampere', cudaComputeCapability: '8.0.0', memoryMiB: 40960 },
  a10g: { productName: 'NVIDIA A10G', architecture: 'Ampere', cudaComputeCapability: '8.6.0', memoryMiB: 23028 },
} as const satisfies Record<string, DraGpuModel>;

const DRIVER_VERSION = '570.133.20';
const CUDA_DRIVER_VERSION = '12.8.0';

/** The DeviceClass the driver's Helm chart installs, with KEP-5004's extendedResourceName. */
export function nvidiaDeviceClass(extendedResourceName = GPU_RESOURCE): Record<string, unknown> {
  return {
    apiVersion: DRA_API,
    kind: 'DeviceClass',
    metadata: { name: NVIDIA_DRA_DRIVER },
    spec: {
      selectors: [{ cel: { expression: `device.driver == '${NVIDIA_DRA_DRIVER}' && device.attributes['${NVIDIA_DRA_DRIVER}'].type == 'gpu'` } }],
      extendedResourceName,
    },
  };
}

/** One full-GPU device as the driver announces it. */
export function nvidiaGpuDevice(minor: number, gpu: DraGpuModel): Record<string, unknown> {
  return {
    name: `gpu-${minor}`,
    attributes: {
      type: { string: 'gpu' },
      uuid: { string: `GPU-${randomUUID()}` },
      productName: { string: gpu.productName },
      brand: { string: 'Nvidia' },
      architecture: { string: gpu.architecture },
      cudaComputeCapability: { version: gpu.cudaComputeCapability },
      driverVersion: { version: DRIVER_VERSION },
      cudaDriverVersion: { version: CUDA_DRIVER_VERSION },
    },
    capacity: { memory: { value: `${gpu.memoryMiB}Mi` } },
  };
}

export interface NvidiaSliceOptions {
  /** Default 1; the driver bumps it when the node's devices change. */
  generation?: number;
  /** Replace the devices, e.g. with a hostile list. */
  devices?: unknown[];
}

/**
 * A device taint as the driver's health monitor writes it (behind its
 * NVMLDeviceHealthCheck gate; cmd/gpu-kubelet-plugin/device_health.go):
 * `gpu.nvidia.com/xid` with the XID as value, NoSchedule for a critical XID
 * and None for one it counts as an application error (13, 31, 43, 45, 68,
 * 109); `gpu.nvidia.com/gpu-lost` NoSchedule; `gpu.nvidia.com/unmonitored`
 * None. The driver never clears them: a restart of the driver does.
 */
export interface DraDeviceTaintSpec {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'NoExecute' | 'None';
}

/** The ResourceSlice of one node with `count` GPUs of one model. */
export function nvidiaResourceSlice(nodeName: string, count: number, gpu: DraGpuModel, options: NvidiaSliceOptions = {}): Record<string, unknown> {
  return {
    apiVersion: DRA_API,
    kind: 'ResourceSlice',
    metadata: { name: `${nodeName}-${NVIDIA_DRA_DRIVER}-${randomUUID().slice(0, 5)}` },
    spec: {
      driver: NVIDIA_DRA_DRIVER,
      nodeName,
      pool: { name: nodeName, generation: options.generation ?? 1, resourceSliceCount: 1 },
      devices: options.devices ?? Array.from({ length: count }, (_, minor) => nvidiaGpuDevice(minor, gpu)),
    },
  };
}

/** The driver on the local control plane: installs its DeviceClass and publishes a node's slice, as its Helm chart and kubelet plugin do. */
export interface DraGpuDriver {
  /** Publishes `count` GPUs of `gpu` on `node`, owned by the Node (deleted with it, as the kubelet plugin's are). */
  publish(node: V1Node, count: number, gpu: DraGpuModel, options?: NvidiaSliceOptions): Promise<void>;
  /** Adds a taint to device `gpu-<minor>` of the slice it published for `nodeName`, as its health monitor does after an NVML event. */
  taint(nodeName: string, minor: number, taint: DraDeviceTaintSpec): Promise<void>;
  /** Removes the DeviceClass (slices go with their nodes). */
  uninstall(): Promise<void>;
}

export async function installDraGpuDriver(admin: KubeConfig): Promise<DraGpuDriver> {
  const objects = KubernetesObjectApi.makeApiClient(admin);
  const deviceClass = nvidiaDeviceClass() as unknown as KubernetesObject;
  await objects.create(deviceClass).catch((error: unknown) => {
    if (!isKubeConflict(error)) throw error;
  });
  /** The slice published per node name, to taint its devices later. */
  const published = new Map<string, string>();
  return {
    async publish(node, count, gpu, options) {
      const name = node.metadata?.name;
      const uid = node.metadata?.uid;
      if (name === undefined || uid === undefined) throw new Error('a Node without name or uid cannot own a ResourceSlice');
      const slice = nvidiaResourceSlice(name, count, gpu, options);
      const metadata = { ...(slice.metadata as Record<string, unknown>), ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid, controller: true }] };
      await objects.create({ ...slice, metadata } as unknown as KubernetesObject);
      published.set(name, (slice.metadata as { name: string }).name);
    },
    async taint(nodeName, minor, taint) {
      const sliceName = published.get(nodeName);
      if (sliceName === undefined) throw new Error(`no ResourceSlice was published for ${nodeName}`);
      // Read, change, replace: the driver's ResourceSlice controller updates its slices the same way (a conflict is retried by the caller).
      const current = (await objects.read({ apiVersion: DRA_API, kind: 'ResourceSlice', metadata: { name: sliceName } })) as unknown as { spec: { devices: Record<string, unknown>[] } };
      const device = current.spec.devices.find((d) => d.name === `gpu-${minor}`);
      if (device === undefined) throw new Error(`${sliceName} has no device gpu-${minor}`);
      const taints = Array.isArray(device.taints) ? (device.taints as unknown[]) : [];
      device.taints = [...taints, { ...taint, timeAdded: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }];
      await objects.replace(current as unknown as KubernetesObject);
    },
    async uninstall() {
      await objects.delete(deviceClass).catch((error: unknown) => {
        if (!isKubeNotFound(error)) throw error;
      });
    },
  };
}

/** A CEL selector of NVIDIA's devices by product name, as the driver's examples write it. */
export const productNameIs = (productName: string): string => `device.attributes['${NVIDIA_DRA_DRIVER}'].productName == '${productName}'`;

/** A CEL selector of NVIDIA's devices with at least `quantity` of memory (e.g. `20Gi`). */
export const memoryAtLeast = (quantity: string): string => `device.capacity['${NVIDIA_DRA_DRIVER}'].memory.compareTo(quantity('${quantity}')) >= 0`;

/** A ResourceClaimTemplate for `count` of NVIDIA's full GPUs (the driver's DeviceClass), narrowed by CEL `selectors`. */
export function nvidiaGpuClaimTemplate(name: string, count: number, selectors: readonly string[] = []): Record<string, unknown> {
  return {
    apiVersion: DRA_API,
    kind: 'ResourceClaimTemplate',
    metadata: { name },
    spec: {
      spec: {
        devices: {
          requests: [
            {
              name: 'gpus',
              exactly: { deviceClassName: NVIDIA_DRA_DRIVER, allocationMode: 'ExactCount', count, selectors: selectors.map((expression) => ({ cel: { expression } })) },
            },
          ],
        },
      },
    },
  };
}

/**
 * A ResourceClaim as the resourceclaim controller makes it from a template of
 * nvidiaGpuClaimTemplate, and, with `allocation`, as kube-scheduler leaves it
 * once it allocated `devices` of the node's pool (the driver names the pool
 * after the node).
 */
export function nvidiaGpuClaim(
  name: string,
  namespace: string,
  count: number,
  selectors: readonly string[] = [],
  allocation?: { readonly node: string; readonly devices: readonly string[] },
): Record<string, unknown> {
  const template = nvidiaGpuClaimTemplate(name, count, selectors) as { spec: { spec: unknown } };
  const results = allocation?.devices.map((device) => ({ request: 'gpus', driver: NVIDIA_DRA_DRIVER, pool: allocation.node, device }));
  return {
    apiVersion: DRA_API,
    kind: 'ResourceClaim',
    metadata: { name, namespace },
    spec: template.spec.spec,
    ...(allocation === undefined
      ? {}
      : {
          status: {
            allocation: {
              devices: { results },
              nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [allocation.node] }] }] },
            },
          },
        }),
  };
}
