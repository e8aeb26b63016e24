// The scheduled reconcile over many nodes: everything labelled, EC2 called in
// batches (counted with an SDK middleware), node list paginated.
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { waitFor } from '../../local/common/wait';
import { buildLabeler, gpuLabelsOf, scheduledEvent } from './labeler-support';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const h = e2eHarness();
const NODE_COUNT = 200;
const TYPES = ['p4d.24xlarge', 'g5.12xlarge', 'g4dn.xlarge', 't3.large', 'p5.48xlarge'] as const;
const EXPECTED_MODEL: Record<string, string | undefined> = {
  'p4d.24xlarge': 'A100',
  'g5.12xlarge': 'A10G',
  'g4dn.xlarge': 'T4',
  't3.large': undefined,
  'p5.48xlarge': 'H100',
};
const nodes: GpuNode[] = [];

beforeAll(async () => {
  // Created 10 at a time: moto and the apiserver share two cores with everything else.
  for (let i = 0; i < NODE_COUNT; i += 10) {
    const batch = Array.from({ length: Math.min(10, NODE_COUNT - i) }, (_, j) => TYPES[(i + j) % TYPES.length] ?? 't3.large');
    nodes.push(...(await Promise.all(batch.map((instanceType) => createGpuNode(h.nodeClients, { instanceType })))));
  }
});

afterAll(async () => {
  for (let i = 0; i < nodes.length; i += 20) {
    await Promise.all(nodes.slice(i, i + 20).map((node) => deleteGpuNode(h.nodeClients, node).catch(() => undefined)));
  }
});

describe('scheduled reconcile', () => {
  it(`labels all ${NODE_COUNT} nodes with a bounded number of EC2 calls, then writes nothing`, async () => {
    const labeler = buildLabeler(h, { NODE_PAGE_SIZE: '50', RECONCILE_CONCURRENCY: '8' });
    const summary = await labeler.handler(scheduledEvent);

    expect(summary).toMatchObject({ kind: 'reconcile', failed: 0 });
    if (summary.kind !== 'reconcile') throw new Error('expected a reconcile summary');
    expect(summary.nodes).toBeGreaterThanOrEqual(NODE_COUNT);
    const gpuNodes = nodes.filter((n) => EXPECTED_MODEL[n.facts.instanceType] !== undefined);
    for (const node of gpuNodes) expect(summary.labeledNodes).toContain(node.name);

    const all = await h.core.listNode();
    const byName = new Map(all.items.map((n) => [n.metadata?.name, n]));
    for (const node of nodes) {
      const labels = gpuLabelsOf(byName.get(node.name));
      expect(labels['gpu.nvidia.com/model'], node.facts.instanceType).toBe(EXPECTED_MODEL[node.facts.instanceType]);
      expect(labels['gpu.nvidia.com/count'], node.facts.instanceType).toBe(node.facts.gpuCount > 0 ? String(node.facts.gpuCount) : undefined);
    }

    // One DescribeInstances per 200 nodes and one DescribeInstanceTypes for all types: not one per node.
    const describeInstances = labeler.ec2Calls.filter((c) => c === 'DescribeInstancesCommand').length;
    const describeTypes = labeler.ec2Calls.filter((c) => c === 'DescribeInstanceTypesCommand').length;
    expect(describeInstances).toBeLessThanOrEqual(Math.ceil(summary.nodes / 200) + 1);
    expect(describeTypes).toBe(1);
    expect(labeler.ec2Calls.length).toBeLessThanOrEqual(Math.ceil(summary.nodes / 200) + 2);
    // The node list was paginated (limit 50).
    expect(labeler.nodeListPages.count).toBeGreaterThanOrEqual(Math.ceil(summary.nodes / 50));

    const again = await labeler.handler(scheduledEvent);
    expect(again).toMatchObject({ kind: 'reconcile', failed: 0 });
    if (again.kind !== 'reconcile') throw new Error('expected a reconcile summary');
    for (const node of nodes) expect(again.labeledNodes).not.toContain(node.name);
    expect(again.alreadyCorrect).toBeGreaterThanOrEqual(NODE_COUNT);
  });
});

describe('a node whose patch the API server refuses', () => {
  const POLICY = 'e2e-labeler-refuse-poisoned-nodes';
  const admission = h.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const extra: GpuNode[] = [];

  afterAll(async () => {
    await admission.deleteValidatingAdmissionPolicyBinding({ name: POLICY }).catch(() => undefined);
    await admission.deleteValidatingAdmissionPolicy({ name: POLICY }).catch(() => undefined);
    for (const node of extra) await deleteGpuNode(h.nodeClients, node).catch(() => undefined);
  });

  it('does not stop the reconcile of the other nodes; the failure is counted and reported', async () => {
    const poisoned = await createGpuNode(h.nodeClients, { instanceType: 'g5.12xlarge', labels: { 'e2e.labeler/poisoned': 'true' } });
    extra.push(poisoned);
    extra.push(await createGpuNode(h.nodeClients, { instanceType: 'g4dn.xlarge' }));
    extra.push(await createGpuNode(h.nodeClients, { instanceType: 'p4d.24xlarge' }));

    // A real admission failure (ValidatingAdmissionPolicy): every update of the poisoned node is refused.
    await admission.createValidatingAdmissionPolicy({
      body: {
        metadata: { name: POLICY },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['nodes'], operations: ['UPDATE'] }] },
          validations: [{ expression: 'false', message: 'e2e: this node refuses updates' }],
        },
      },
    });
    await admission.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: POLICY },
        spec: {
          policyName: POLICY,
          validationActions: ['Deny'],
          matchResources: { objectSelector: { matchLabels: { 'e2e.labeler/poisoned': 'true' } } },
        },
      },
    });
    await waitFor('the admission policy to refuse updates of the poisoned node', async () => {
      try {
        await h.core.patchNode(
          { name: poisoned.name, body: { metadata: { labels: { 'e2e.labeler/probe': String(Date.now()) } } } },
          MERGE_PATCH_OPTIONS,
        );
        return undefined;
      } catch {
        return true;
      }
    });

    const labeler = buildLabeler(h, { RECONCILE_CONCURRENCY: '2' });
    const summary = await labeler.handler(scheduledEvent);
    if (summary.kind !== 'reconcile') throw new Error('expected a reconcile summary');
    expect(summary.failed).toBe(1);
    expect(summary.errorsByKind).toEqual({ Kubernetes: 1 });
    expect(summary.failures).toEqual([expect.objectContaining({ node: poisoned.name, kind: 'Kubernetes' })]);
    for (const node of extra.slice(1)) {
      expect(summary.labeledNodes).toContain(node.name);
      expect(gpuLabelsOf(await h.core.readNode({ name: node.name }))['gpu.nvidia.com/model']).toBe(EXPECTED_MODEL[node.facts.instanceType]);
    }
    expect(gpuLabelsOf(await h.core.readNode({ name: poisoned.name }))).toEqual({});
  });
});
