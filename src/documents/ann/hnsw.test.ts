import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkGraph } from './hnsw.ts';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('ChunkGraph (usearch, keyed by chunk seq)', () => {
  it('finds the nearest keys by cosine, and answers only keys it holds when asked for more', () => {
    const g = new ChunkGraph(3);
    g.add([1, 2, 3], [v(1, 0, 0), v(0, 1, 0), v(0.9, 0.1, 0)]);
    assert.equal(g.size, 3);
    assert.deepEqual(g.search(v(2, 0, 0), 2), [1, 3], 'cosine: the length of the query does not matter');
    assert.deepEqual(g.search(v(0, 1, 0), 10).length, 3);
    assert.deepEqual(new ChunkGraph(3).search(v(1, 0, 0), 5), []);
  });

  it('replaces the vector of a key added again (the last of a call wins), and removes keys it holds', () => {
    const g = new ChunkGraph(2);
    g.add([7], [v(1, 0)]);
    g.add([7, 7], [v(1, 0), v(0, 1)]);
    assert.equal(g.size, 1);
    assert.deepEqual(g.search(v(0, 1), 1), [7]);
    g.add([8], [v(1, 0)]);
    assert.deepEqual(g.search(v(1, 0), 1), [8]);
    assert.equal(g.remove([8, 99]), 1);
    assert.deepEqual([...g.keys()], [7n]);
    assert.equal(g.removedSinceBuild, 2, 'one replacement (the repeated key counts once) and one removal');
  });

  it('skips vectors of other dimensions instead of failing the batch', () => {
    const g = new ChunkGraph(2);
    g.add([1, 2], [v(1, 0), v(1, 0, 0)]);
    assert.deepEqual([...g.keys()], [1n]);
  });
});
