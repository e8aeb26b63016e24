// Shared setup for the labeler's e2e files: the handler built over a counting
// EC2 client, the labeler's least-privilege kubeconfig and a spied telemetry.
import { DescribeImagesCommand, EC2Client, RunInstancesCommand, type _InstanceType } from '@aws-sdk/client-ec2';
import type { CoreV1Api, V1Node, V1Taint } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { vi } from 'vitest';
import { createNodeGateway, type NodeGateway } from '../../lambdas/kube';
import type { LabelerResult } from '../../lambdas/labeler/labeler-handler';
import { createLabelerHandler } from '../../lambdas/labeler/labeler-handler';
import { SERVICE } from '../../lambdas/observability/metric-catalog';
import { CAPACITY_LABEL } from '../../lambdas/scheduling/keys';
import { createTelemetry, type Telemetry } from '../../lambdas/observability/telemetry';
import type { E2eHarness } from './support/e2e-context';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { LOCAL_CLUSTER_NAME } from '../../local/nodes/gpu-nodes';
import { awsClientConfig, awsEnvironment, LOCAL_AWS_REGION } from '../../local/aws/moto';

export interface LabelerUnderTest {
  /** The handler, invoked with a fresh Lambda context of the labeler's 5-minute timeout each time. */
  handler: (event: unknown) => Promise<LabelerResult>;
  telemetry: Telemetry;
  /** EC2 operations the handler called, in order (SDK middleware, so retries of one call count once). */
  ec2Calls: string[];
  /** Node list pages the handler fetched. */
  nodeListPages: { count: number };
  /** Single-node GETs the handler made. */
  nodeReads: { count: number };
}

export function labelerEnv(h: E2eHarness, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...awsEnvironment(h.info.motoUrl),
    CLUSTER_NAME: LOCAL_CLUSTER_NAME,
    ...extra,
  };
}

/** A fresh labeler (fresh caches), talking to the apiserver as the labeler's RBAC identity. */
export function buildLabeler(h: E2eHarness, extraEnv: Record<string, string> = {}): LabelerUnderTest {
  const env = labelerEnv(h, extraEnv);
  // Dev mode sends Powertools logs through the global console, where tests can read them.
  process.env.POWERTOOLS_DEV = 'true';
  const telemetry = createTelemetry(SERVICE.labeler);
  vi.spyOn(telemetry, 'record');

  const ec2Calls: string[] = [];
  const ec2 = new EC2Client(awsClientConfig(h.info.motoUrl));
  ec2.middlewareStack.add(
    (next, context) => async (args) => {
      ec2Calls.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'countEc2Calls' },
  );

  const kc = new KubeConfig();
  kc.loadFromFile(h.info.controlPlane.lambdaKubeconfigs.labeler);
  const real = createNodeGateway(kc);
  const nodeListPages = { count: 0 };
  const nodeReads = { count: 0 };
  const nodes: NodeGateway = {
    ...real,
    readNode(name) {
      nodeReads.count += 1;
      return real.readNode(name);
    },
    async *listNodePages(options) {
      for await (const page of real.listNodePages(options)) {
        nodeListPages.count += 1;
        yield page;
      }
    },
  };
  const handler = createLabelerHandler({ env, ec2, nodes, telemetry });
  const invoke = (event: unknown) => handler(event, localLambdaContext({ functionName: SERVICE.labeler, timeoutMs: 300_000 }));
  return { handler: invoke, telemetry, ec2Calls, nodeListPages, nodeReads };
}

export function stateChangeEvent(instanceId: string, state = 'running', time = new Date().toISOString()): Record<string, unknown> {
  return {
    version: '0',
    id: `e2e-${instanceId}-${state}`,
    'detail-type': 'EC2 Instance State-change Notification',
    source: 'aws.ec2',
    account: '123456789012',
    time,
    region: LOCAL_AWS_REGION,
    resources: [`arn:aws:ec2:${LOCAL_AWS_REGION}:123456789012:instance/${instanceId}`],
    detail: { 'instance-id': instanceId, state },
  };
}

export const scheduledEvent = {
  version: '0',
  id: 'e2e-schedule',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: new Date().toISOString(),
  region: LOCAL_AWS_REGION,
  resources: ['arn:aws:events:us-east-1:123456789012:rule/gpu-node-labeler-reconcile'],
  detail: {},
};

const CAPACITY_KEYS: ReadonlySet<string> = new Set(Object.values(CAPACITY_LABEL));

/** Labels under the GPU keys the labeler may own (base and compatibility keys); its capacity keys are capacityLabelsOf's. */
export function gpuLabelsOf(node: V1Node | undefined): Record<string, string> {
  const labels = node?.metadata?.labels ?? {};
  return Object.fromEntries(
    Object.entries(labels).filter(
      ([key]) =>
        !CAPACITY_KEYS.has(key) && (key.startsWith('gpu.nvidia.com/') || key.startsWith('karpenter.k8s.aws/instance-gpu') || key.startsWith('nvidia.com/gpu.')),
    ),
  );
}

/** Labels under the capacity keys the labeler owns (gpu.nvidia.com/capacity-type, capacity-reservation-*). */
export function capacityLabelsOf(node: V1Node | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(node?.metadata?.labels ?? {}).filter(([key]) => CAPACITY_KEYS.has(key)));
}

/** Launches an instance in moto without registering a node (a node that has not joined yet). */
export async function launchInstance(
  ec2: EC2Client,
  instanceType: string,
  tags: Record<string, string> = { [`kubernetes.io/cluster/${LOCAL_CLUSTER_NAME}`]: 'owned', 'eks:cluster-name': LOCAL_CLUSTER_NAME },
): Promise<{ instanceId: string; privateDnsName: string; zone: string }> {
  const image = (await ec2.send(new DescribeImagesCommand({ Owners: ['amazon'] }))).Images?.find((i) => i.ImageId)?.ImageId;
  const zone = `${LOCAL_AWS_REGION}a`;
  const { Instances } = await ec2.send(
    new RunInstancesCommand({
      ImageId: image,
      InstanceType: instanceType as _InstanceType,
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: zone },
      ...(Object.keys(tags).length > 0
        ? { TagSpecifications: [{ ResourceType: 'instance', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }] }
        : {}),
    }),
  );
  const instance = Instances?.[0];
  if (!instance?.InstanceId || !instance.PrivateDnsName) throw new Error('moto returned no instance');
  return { instanceId: instance.InstanceId, privateDnsName: instance.PrivateDnsName, zone };
}

/** Registers the Node for an instance the way kubelet would (name = private DNS name, providerID, the node group's taints). */
export async function registerNode(
  core: CoreV1Api,
  instance: { instanceId: string; privateDnsName: string; zone: string },
  taints: V1Taint[] = [],
): Promise<V1Node> {
  return core.createNode({
    body: {
      metadata: { name: instance.privateDnsName, labels: { 'kubernetes.io/hostname': instance.privateDnsName } },
      spec: { providerID: `aws:///${instance.zone}/${instance.instanceId}`, ...(taints.length > 0 ? { taints } : {}) },
    },
  });
}
