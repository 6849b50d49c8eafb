import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunked, cosine, l2normalize, toUnitVector } from './vector.ts';

describe('vector helpers', () => {
  it('normalizes to unit length and leaves the zero vector alone', () => {
    const v = l2normalize(Float32Array.from([3, 4]));
    assert.deepEqual(Array.from(v), [0.6000000238418579, 0.800000011920929]);
    assert.deepEqual(Array.from(l2normalize(new Float32Array(3))), [0, 0, 0]);
    const u = toUnitVector([1, 2, 2]);
    assert.ok(Math.abs(Math.hypot(...u) - 1) < 1e-6);
  });

  it('computes cosine, 0 for a zero vector, and rejects mismatched sizes', () => {
    assert.equal(cosine([1, 0], [1, 0]), 1);
    assert.equal(cosine([1, 0], [0, 1]), 0);
    assert.ok(Math.abs(cosine([1, 1], [-1, -1]) + 1) < 1e-12);
    assert.equal(cosine([0, 0], [1, 0]), 0);
    assert.throws(() => cosine([1], [1, 2]), /dimension mismatch/);
  });

  it('splits into batches', () => {
    assert.deepEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.deepEqual(chunked([], 3), []);
    assert.throws(() => chunked([1], 0));
  });
});
