import type { InstanceSummary, InstanceTypeGpuCatalog } from '../aws';
import type { NodeGateway } from '../kube';
import type { LabelerConfig } from './config';
import type { Clock } from './node-registration';

/** EC2 lookups the labeler makes, batched by the implementation. */
export interface InstanceDirectory {
  byIds(instanceIds: readonly string[]): Promise<ReadonlyMap<string, InstanceSummary>>;
  byPrivateDnsNames(dnsNames: readonly string[]): Promise<ReadonlyMap<string, InstanceSummary>>;
}

/** Everything the labeling logic talks to; the handler builds the real ones. */
export interface LabelerDeps {
  readonly config: LabelerConfig;
  readonly nodes: NodeGateway;
  readonly instances: InstanceDirectory;
  readonly gpuTypes: InstanceTypeGpuCatalog;
  /** Paces the wait for a node to register. */
  readonly clock: Clock;
}
