import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translatedSimilarity, translatorFrom } from '../../src/federation/translate.ts';
import type { LoadedTranslation } from '../../src/translations/index.ts';
import type { LinearMap } from '../../src/vec2vec/index.ts';

/** A 2-d linear map y = x·W (row-major W, no bias). */
function linear(id: string, from: string, to: string, w: number[], confidence: number): LoadedTranslation {
  const map: LinearMap = { kind: 'linear', method: 'ridge', sourceDim: 2, targetDim: 2, weight: Float32Array.from(w), bias: new Float32Array(2) };
  return { id, sourceModel: from, targetModel: to, confidence, map, record: {} as LoadedTranslation['record'] };
}

// Model B's space is model A's rotated by 90°: A → B maps (x, y) to (−y, x), B → A maps (x, y) to (y, −x).
const AB = [0, 1, -1, 0];
const BA = [0, -1, 1, 0];
const registryOf = (...ts: LoadedTranslation[]) => ({
  findTranslation: async (_tenant: string, from: string, to: string) => ts.find((t) => t.sourceModel === from && t.targetModel === to) ?? null,
});

describe('translatorFrom: document side first, query side as the fallback', () => {
  const query = Float32Array.from([1, 0]); // in A's space
  const passage = Float32Array.from([0, 1]); // in B's space: the query's own direction, rotated

  it('translates the passages into the query model when that direction exists, whatever the confidences', async () => {
    const tr = translatorFrom(registryOf(linear('a-to-b', 'A', 'B', AB, 0.8), linear('b-to-a', 'B', 'A', BA, 0.4)));
    const t = await tr.find('t', 'B', 'A');
    assert.ok(t);
    assert.equal(t.id, 'b-to-a');
    assert.equal(t.side, 'document');
    assert.equal(t.confidence, 0.4);
    assert.ok(Math.abs(translatedSimilarity(t, passage, query) - 1) < 1e-6);
    assert.ok(Math.abs(translatedSimilarity(t, Float32Array.from([1, 0]), query)) < 1e-6);
  });

  it('translates the query into the passage model when only that direction is registered', async () => {
    const tr = translatorFrom(registryOf(linear('a-to-b', 'A', 'B', AB, 0.8)));
    const t = await tr.find('t', 'B', 'A');
    assert.ok(t);
    assert.equal(t.id, 'a-to-b');
    assert.equal(t.side, 'query');
    assert.equal(t.confidence, 0.8);
    assert.ok(Math.abs(translatedSimilarity(t, passage, query) - 1) < 1e-6);
    // an orthogonal passage scores 0; the translated query is cached per query vector, not reused for another
    assert.ok(Math.abs(translatedSimilarity(t, Float32Array.from([1, 0]), query)) < 1e-6);
    assert.ok(Math.abs(translatedSimilarity(t, Float32Array.from([1, 0]), Float32Array.from([0, -1])) - 1) < 1e-6);
  });

  it('is null when neither direction is registered', async () => {
    assert.equal(await translatorFrom(registryOf()).find('t', 'B', 'A'), null);
  });
});
