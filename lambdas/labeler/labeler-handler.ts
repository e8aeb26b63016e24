import type { EC2Client } from '@aws-sdk/client-ec2';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Env } from '../env';
import { ConfigError } from '../env';
import { awsClientConfigFromEnv, createEc2Client, createInstanceTypeGpuCatalog, describeInstances, describeInstancesByPrivateDnsName } from '../aws';
import type { NodeGateway } from '../kube';
import { createNodeGateway, kubeConfigFromEnvironment } from '../kube';
import { METRIC, SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import { parseLabelerEvent } from './instance-events';
import type { InstanceOutcome } from './label-instance';
import { labelInstance } from './label-instance';
import { labelerConfigFromEnv } from './labeler-config';
import type { LabelerDeps } from './labeler-deps';
import { errorKind, LabelerError } from './labeler-errors';
import type { ReconcileSummary } from './reconcile-nodes';
import { reconcileNodes } from './reconcile-nodes';

export type LabelerResult =
  | ({ readonly kind: 'instance'; readonly instanceId: string } & InstanceOutcome)
  | { readonly kind: 'instance'; readonly instanceId: string; readonly result: 'ignored'; readonly reason: 'instanceNotRunning'; readonly detail: string }
  | ({ readonly kind: 'reconcile' } & ReconcileSummary)
  | { readonly kind: 'rejected'; readonly reason: string };

export interface LabelerHandlerOptions {
  /** Defaults to process.env. */
  readonly env?: Env;
  /** Injected by tests that count EC2 calls with an SDK middleware. */
  readonly ec2?: EC2Client;
  readonly nodes?: NodeGateway;
  readonly telemetry?: Telemetry;
}

/**
 * The EventBridge entry point as a factory, so the Lambda module builds it once
 * (clients, caches and the EKS token live for the warm container) and tests can
 * build one over their own clients and environment.
 */
export function createLabelerHandler(options: LabelerHandlerOptions = {}): (event: unknown) => Promise<LabelerResult> {
  const env = options.env ?? process.env;
  const telemetry = options.telemetry ?? createTelemetry(SERVICE.labeler);
  const { logger } = telemetry;
  let deps: Promise<LabelerDeps> | undefined;

  async function buildDeps(): Promise<LabelerDeps> {
    const config = labelerConfigFromEnv(env);
    const ec2 = options.ec2 ?? createEc2Client(awsClientConfigFromEnv(env));
    const nodes = options.nodes ?? createNodeGateway(await connect());
    return {
      config,
      nodes,
      instances: {
        byIds: (ids) => describeInstances(ec2, ids),
        byPrivateDnsNames: (names) => describeInstancesByPrivateDnsName(ec2, names),
      },
      gpuTypes: createInstanceTypeGpuCatalog(ec2),
    };
  }

  /** DescribeCluster/kubeconfig failures count as Kubernetes errors; configuration errors stay ConfigError. */
  async function connect(): Promise<KubeConfig> {
    try {
      return await kubeConfigFromEnvironment(env);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new LabelerError('Kubernetes', `cannot reach the cluster: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  function getDeps(): Promise<LabelerDeps> {
    deps ??= buildDeps().catch((error: unknown) => {
      deps = undefined; // a configuration or DescribeCluster failure is retried on the next invocation
      throw error;
    });
    return deps;
  }

  return async function handler(event: unknown): Promise<LabelerResult> {
    try {
      const request = parseLabelerEvent(event);
      switch (request.kind) {
        case 'invalid': {
          // Logged and dropped, never thrown: a retry cannot fix a malformed event.
          logger.error('rejected event: not an EC2 running state-change or scheduled reconcile', { reason: request.reason });
          telemetry.record(METRIC.labelerErrors, 1, { Kind: 'InvalidEvent' });
          return { kind: 'rejected', reason: request.reason };
        }
        case 'instanceNotRunning': {
          const detail = `instance ${request.instanceId} is ${request.state}, only running instances are labelled`;
          logger.info('ignored state-change', { instanceId: request.instanceId, state: request.state });
          return { kind: 'instance', instanceId: request.instanceId, result: 'ignored', reason: 'instanceNotRunning', detail };
        }
        case 'instanceRunning': {
          const outcome = await runOrRecord(() => getDeps().then((d) => labelInstance(d, request.instanceId)), { instanceId: request.instanceId });
          recordInstanceOutcome(outcome, request.instanceId, request.eventTime);
          return { kind: 'instance', instanceId: request.instanceId, ...outcome };
        }
        case 'reconcile': {
          const summary = await runOrRecord(() => getDeps().then((d) => reconcileNodes(d)), { trigger: 'schedule' });
          recordSummary(summary);
          return { kind: 'reconcile', ...summary };
        }
      }
    } finally {
      telemetry.flush();
    }
  };

  async function runOrRecord<T>(fn: () => Promise<T>, context: Record<string, string>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const kind = errorKind(error);
      telemetry.record(METRIC.labelerErrors, 1, { Kind: kind });
      const log = kind === 'NodeNotRegistered' ? logger.warn.bind(logger) : logger.error.bind(logger);
      log('labeling failed; the event will be retried', { ...context, kind, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  function recordInstanceOutcome(outcome: InstanceOutcome, instanceId: string, eventTime: number | undefined): void {
    switch (outcome.result) {
      case 'labeled':
        telemetry.record(METRIC.nodesLabeled, 1);
        if (eventTime !== undefined) telemetry.record(METRIC.timeToLabel, Math.max(0, Date.now() - eventTime));
        logger.info('labeled node', { instanceId, node: outcome.nodeName, patch: outcome.patch });
        return;
      case 'alreadyCorrect':
        telemetry.record(METRIC.labelsAlreadyCorrect, 1);
        logger.info('labels already correct', { instanceId, node: outcome.nodeName });
        return;
      case 'ignored':
        logger.info('nothing to label', { instanceId, reason: outcome.reason, detail: outcome.detail });
        return;
    }
  }

  function recordSummary(summary: ReconcileSummary): void {
    telemetry.record(METRIC.nodesLabeled, summary.labeled);
    telemetry.record(METRIC.labelsAlreadyCorrect, summary.alreadyCorrect);
    for (const [kind, count] of Object.entries(summary.errorsByKind)) telemetry.record(METRIC.labelerErrors, count, { Kind: kind });
    const log = summary.failed > 0 ? logger.warn.bind(logger) : logger.info.bind(logger);
    log('reconciled node labels', {
      nodes: summary.nodes,
      labeled: summary.labeled,
      alreadyCorrect: summary.alreadyCorrect,
      skipped: summary.skipped,
      failed: summary.failed,
      errorsByKind: summary.errorsByKind,
      failures: summary.failures,
    });
  }
}
