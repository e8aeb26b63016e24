import type { EC2Client } from '@aws-sdk/client-ec2';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../common/error-message';
import {
  awsClientConfigFromEnv,
  createEc2Client,
  createInstanceTypeGpuCatalog,
  describeCapacityReservations,
  describeInstances,
  describeInstancesByPrivateDnsName,
} from '../aws';
import type { Env } from '../env';
import { ConfigError } from '../env';
import type { NodeGateway } from '../kube';
import { createNodeGateway, kubeConfigFromEnvironment, kubeConfigOf } from '../kube';
import type { KubeConnection } from '../kube/kube-http-client';
import { labelerConfigFromEnv } from './config';
import type { LabelerDeps } from './labeler-deps';
import { LabelerError } from './labeler-errors';
import { SYSTEM_CLOCK } from './node-registration';

export interface LabelerOverrides {
  /** Injected by tests that count EC2 calls with an SDK middleware. */
  readonly ec2?: EC2Client;
  readonly nodes?: NodeGateway;
  /** The API server in place of the EKS cluster CLUSTER_NAME names: local hosts pass a kubeconfig file's (local/control-plane/kubeconfig-connection.ts). */
  readonly kubeConnection?: () => Promise<KubeConnection>;
}

/**
 * The one place the labeler's dependencies are built from its environment:
 * configuration, the EC2 client and lookups, and the node gateway. Throws a
 * ConfigError naming the variable on bad configuration.
 */
export async function wireLabeler(env: Env, overrides: LabelerOverrides = {}): Promise<LabelerDeps> {
  const config = labelerConfigFromEnv(env);
  const ec2 = overrides.ec2 ?? createEc2Client(awsClientConfigFromEnv(env));
  const nodes = overrides.nodes ?? createNodeGateway(await connect(env, overrides.kubeConnection));
  return {
    config,
    nodes,
    instances: {
      byIds: (ids) => describeInstances(ec2, ids),
      byPrivateDnsNames: (names) => describeInstancesByPrivateDnsName(ec2, names),
    },
    gpuTypes: createInstanceTypeGpuCatalog(ec2),
    reservations: { byIds: (ids) => describeCapacityReservations(ec2, ids) },
    clock: SYSTEM_CLOCK,
  };
}

/** DescribeCluster/connection failures count as Kubernetes errors; configuration errors stay ConfigError. */
async function connect(env: Env, injected: (() => Promise<KubeConnection>) | undefined): Promise<KubeConfig> {
  try {
    return injected === undefined ? await kubeConfigFromEnvironment(env) : kubeConfigOf(await injected());
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new LabelerError('Kubernetes', `cannot reach the cluster: ${errorMessage(error)}`, { cause: error });
  }
}
