import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mrrAt, ndcgAt, percentile, recallAt } from './metrics.ts';

describe('retrieval metrics', () => {
  const rels = new Map([
    ['d1', 2],
    ['d2', 1],
    ['d3', 0],
  ]);
  it('nDCG is 1 for the ideal order and lower otherwise (linear gain, as trec_eval)', () => {
    assert.equal(ndcgAt(['d1', 'd2'], rels, 10), 1);
    const swapped = ndcgAt(['d2', 'd1'], rels, 10);
    const idcg = 2 + 1 / Math.log2(3);
    assert.ok(Math.abs(swapped - (1 + 2 / Math.log2(3)) / idcg) < 1e-12);
    assert.equal(ndcgAt(['x', 'y'], rels, 10), 0);
    assert.ok(ndcgAt(['x', 'd1'], rels, 1) === 0, 'cut at k');
  });
  it('recall counts judged-relevant documents only', () => {
    assert.equal(recallAt(['d1', 'd3'], rels, 100), 0.5);
    assert.equal(recallAt([], new Map(), 100), 0);
  });
  it('MRR is the reciprocal rank of the first relevant document', () => {
    assert.equal(mrrAt(['x', 'd3', 'd2'], rels, 10), 1 / 3);
    assert.equal(mrrAt(['x', 'd2'], rels, 1), 0);
  });
  it('percentile uses the nearest rank', () => {
    assert.equal(percentile([5, 1, 3, 2, 4], 50), 3);
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
    assert.equal(percentile([], 50), 0);
  });
});
