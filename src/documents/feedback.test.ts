import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rocchioCandidates, rowVectors } from './feedback.ts';
import type { Candidate } from './fusion.ts';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** Candidates whose semantic score is the real cosine of `q` to their vector. */
function setup(q: Float32Array, items: { id: string; v: Float32Array; lexical: number | null; vec?: boolean }[]) {
  const lex = items.filter((x) => x.lexical !== null).sort((a, b) => (b.lexical ?? 0) - (a.lexical ?? 0));
  const vec = items.filter((x) => x.vec !== false).sort((a, b) => dot(q, b.v) - dot(q, a.v));
  const cands: Candidate[] = items.map((x) => ({
    id: x.id,
    lexical: x.lexical,
    semantic: dot(q, x.v),
    lexRank: x.lexical === null ? null : lex.indexOf(x) + 1,
    vecRank: x.vec === false ? null : vec.indexOf(x) + 1,
  }));
  return { cands, vectors: new Map(items.map((x) => [x.id, x.v])) };
}

describe('vector pseudo-relevance feedback (Rocchio)', () => {
  const q = unit(1, 0, 0);
  const items = [
    { id: 'top1', v: unit(1, 1, 0), lexical: 9 },
    { id: 'top2', v: unit(1, 2, 0), lexical: 8 },
    { id: 'low', v: unit(1, 0, 3), lexical: 1 },
    { id: 'near', v: unit(0.5, 1, 0), lexical: null },
    { id: 'far', v: unit(0.9, 0, -1), lexical: null },
  ];

  it('scores every candidate by its cosine to normalize(q + β·mean(top-m lexical vectors))', () => {
    const { cands, vectors } = setup(q, items);
    const beta = 0.7;
    const out = rocchioCandidates(cands, vectors, { docs: 2, beta });
    const mu = Float32Array.from({ length: 3 }, (_, i) => (items[0]!.v[i]! + items[1]!.v[i]!) / 2);
    const qp = unit(...Array.from(q, (x, i) => x + beta * mu[i]!));
    for (const c of out) {
      const v = vectors.get(c.id)!;
      assert.ok(Math.abs((c.semantic ?? Number.NaN) - dot(qp, v)) < 1e-6, `${c.id}: ${c.semantic} vs ${dot(qp, v)}`);
    }
  });

  it('moves candidates like the feedback passages up the vector ranking', () => {
    const { cands, vectors } = setup(q, items);
    const before = cands.find((c) => c.id === 'near')!;
    const farBefore = cands.find((c) => c.id === 'far')!;
    assert.ok(farBefore.vecRank! < before.vecRank!, 'q alone prefers far');
    const out = rocchioCandidates(cands, vectors, { docs: 2, beta: 2 });
    const near = out.find((c) => c.id === 'near')!;
    const far = out.find((c) => c.id === 'far')!;
    assert.ok(near.vecRank! < far.vecRank!, 'feedback prefers near');
    assert.deepEqual(
      out.map((c) => c.lexical),
      cands.map((c) => c.lexical),
      'lexical scores untouched',
    );
  });

  it('uses only the top-m lexical candidates', () => {
    const { cands, vectors } = setup(q, items);
    const one = rocchioCandidates(cands, vectors, { docs: 1, beta: 1 });
    const qp = unit(...Array.from(q, (x, i) => x + items[0]!.v[i]!));
    const low = one.find((c) => c.id === 'low')!;
    assert.ok(Math.abs(low.semantic! - dot(qp, items[2]!.v)) < 1e-6);
  });

  it('is the identity when off, without lexical candidates, or without comparable vectors', () => {
    const { cands, vectors } = setup(q, items);
    assert.equal(rocchioCandidates(cands, vectors, { docs: 3, beta: 0 }), cands);
    assert.equal(rocchioCandidates(cands, vectors, { docs: 0, beta: 1 }), cands);
    const noLex = cands.map((c) => ({ ...c, lexical: null, lexRank: null }));
    assert.equal(rocchioCandidates(noLex, vectors, { docs: 3, beta: 1 }), noLex);
    assert.equal(rocchioCandidates(cands, new Map(), { docs: 3, beta: 1 }), cands);
  });

  it('leaves candidates in another model space (semantic null) or of other dimensions alone', () => {
    const { cands, vectors } = setup(q, items);
    const mixed = [...cands, { id: 'other', lexical: 5, semantic: null, lexRank: 3, vecRank: null }];
    const v2 = new Map(vectors);
    v2.set('other', unit(1, 0, 0, 1));
    const out = rocchioCandidates(mixed, v2, { docs: 3, beta: 1 });
    assert.equal(out.find((c) => c.id === 'other')!.semantic, null);
    assert.equal(out.length, mixed.length);
  });

  it('reads row vectors in both column formats, skipping rows without a semantic score', () => {
    const m = rowVectors([
      { chunk_id: 'a', vec: '[1,2.5e-1]', semantic: 0.5 },
      { chunk_id: 'b', vec: '{3,-4}', semantic: 0.1 },
      { chunk_id: 'c', vec: null, semantic: 0.2 },
      { chunk_id: 'd', vec: '[1,2]', semantic: null },
    ]);
    assert.deepEqual(Array.from(m.get('a')!), [1, 0.25]);
    assert.deepEqual(Array.from(m.get('b')!), [3, -4]);
    assert.equal(m.get('c'), null);
    assert.equal(m.has('d'), false);
  });

  it('does not need unit-length stored vectors', () => {
    const { cands, vectors } = setup(q, items);
    const scaled = new Map([...vectors].map(([id, v]) => [id, v.map((x) => x * 3)]));
    const a = rocchioCandidates(cands, vectors, { docs: 2, beta: 1 });
    const b = rocchioCandidates(cands, scaled, { docs: 2, beta: 1 });
    for (const [i, c] of a.entries()) assert.ok(Math.abs((c.semantic ?? 0) - (b[i]!.semantic ?? 0)) < 1e-6);
  });
});
