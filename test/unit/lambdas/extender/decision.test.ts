import { describe, expect, it } from 'vitest';
import { NOT_IN_CACHE_MESSAGE, RejectionTally } from '../../../../lambdas/extender/decision';
import { reject } from '../../../../lambdas/scheduling';

describe('RejectionTally', () => {
  it('counts a group of nodes with one add, as many single adds would', () => {
    // reject() takes a RejectionReason: a code that does not exist fails typecheck.
    const tooFew = reject('InsufficientGpus', 'requested 4, free 2');
    const model = reject('GpuModelMismatch', undefined, true);
    const grouped = new RejectionTally();
    grouped.add(tooFew, 3);
    grouped.add(model);
    grouped.addNotFound(2);
    const single = new RejectionTally();
    for (const status of [tooFew, model, tooFew, tooFew]) single.add(status);
    single.addNotFound();
    single.addNotFound();
    const summary = grouped.summary('ml/p', 'NodeNames', 10, 4);
    expect(summary).toEqual(single.summary('ml/p', 'NodeNames', 10, 4));
    expect(summary).toMatchObject({
      failed: 6,
      reasons: { InsufficientGpus: 3, GpuModelMismatch: 1, NodeNotFound: 2 },
      topReasons: ['Not enough GPUs: requested 4, free 2 (3 nodes)', `${NOT_IN_CACHE_MESSAGE} (2 nodes)`, 'GPU model mismatch (1 node)'],
    });
  });
});
