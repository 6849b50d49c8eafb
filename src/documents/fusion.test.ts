import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bm25Idf, bm25Score, convexScores, ranks, rrfScore } from './fusion.ts';

describe('BM25', () => {
  it('rewards rarer terms and saturates term frequency', () => {
    assert.ok(bm25Idf(1000, 1) > bm25Idf(1000, 100));
    assert.ok(bm25Idf(1000, 1000) > 0, 'Lucene idf never goes negative');
    const corpus = { chunkCount: 100, avgLength: 50 };
    const one = bm25Score([{ tf: 1, df: 10 }], 50, corpus);
    const two = bm25Score([{ tf: 2, df: 10 }], 50, corpus);
    const ten = bm25Score([{ tf: 10, df: 10 }], 50, corpus);
    assert.ok(two > one && ten > two);
    assert.ok(ten - two < (two - one) * 8, 'saturation');
    assert.ok(bm25Score([{ tf: 1, df: 10 }], 200, corpus) < one, 'longer passages are normalized down');
    assert.equal(bm25Score([{ tf: 0, df: 10 }], 50, corpus), 0);
  });

  it('matches the formula on a hand-computed case', () => {
    const s = bm25Score([{ tf: 3, df: 2 }], 10, { chunkCount: 10, avgLength: 20 });
    const idf = Math.log(1 + (10 - 2 + 0.5) / (2 + 0.5));
    const expected = (idf * 3 * 2.2) / (3 + 1.2 * (1 - 0.75 + 0.75 * (10 / 20)));
    assert.ok(Math.abs(s - expected) < 1e-12);
  });
});

describe('fusion', () => {
  it('RRF scales to 1 for first in both lists and favours agreement', () => {
    assert.equal(rrfScore({ lexRank: 1, vecRank: 1 }, 2), 1);
    assert.ok(rrfScore({ lexRank: 2, vecRank: 2 }, 2) > rrfScore({ lexRank: 1, vecRank: null }, 2));
    assert.equal(rrfScore({ lexRank: 1, vecRank: null }, 1), 1);
  });

  it('convex combination normalizes both scores and weighs them by alpha', () => {
    const cands = [
      { id: 'a', lexical: 10, semantic: 0.2, lexRank: 1, vecRank: 3 },
      { id: 'b', lexical: 0, semantic: 0.9, lexRank: null, vecRank: 1 },
      { id: 'c', lexical: 5, semantic: 0.5, lexRank: 2, vecRank: 2 },
    ];
    const lexHeavy = convexScores(cands, 0.2);
    const semHeavy = convexScores(cands, 0.8);
    assert.equal(lexHeavy.get('a'), 0.8);
    assert.ok(Math.abs((semHeavy.get('b') ?? 0) - 0.8) < 1e-12);
    const order = (m: Map<string, number>) => [...m.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id);
    assert.equal(order(lexHeavy)[0], 'a');
    assert.equal(order(semHeavy)[0], 'b');
  });

  it('falls back to the one available signal', () => {
    const lexOnly = convexScores([{ id: 'a', lexical: 4, semantic: null, lexRank: 1, vecRank: null }, { id: 'b', lexical: 2, semantic: null, lexRank: 2, vecRank: null }], 0.5);
    assert.deepEqual([...lexOnly.values()], [1, 0.5]);
    const semOnly = convexScores([{ id: 'a', lexical: 0, semantic: 0.5, lexRank: null, vecRank: 1 }], 0.5);
    assert.equal(semOnly.get('a'), 1);
  });

  it('ranks by descending score', () => {
    assert.deepEqual([...ranks([{ id: 'x', score: 1 }, { id: 'y', score: 3 }]).entries()], [['y', 1], ['x', 2]]);
  });
});
