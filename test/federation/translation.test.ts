import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { upsertDocuments } from '../../src/documents/index.ts';
import type { EmbeddingProvider, EmbeddingRegistry } from '../../src/embeddings/provider.ts';
import { createFederationService, runFederatedQuery, type Translator } from '../../src/federation/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector } from './fixtures.ts';

const DIM = 64;
/** A fixed permutation of the dimensions: model B's space is model A's with its axes shuffled. */
const PERM = Array.from({ length: DIM }, (_, i) => (i * 37 + 11) % DIM);

function hashed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 2166136261;
    for (const c of w) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
    v[(h >>> 0) % DIM]! += (h & 1) === 0 ? 1 : -1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}
const permute = (v: Float32Array) => Float32Array.from(PERM, (j) => v[j]!);

/** Deterministic hashed bag-of-words models for tests (not a real language model). */
const modelA: EmbeddingProvider = { id: 'test/hash-a', dimensions: DIM, embed: async (texts) => texts.map(hashed) };
const modelB: EmbeddingProvider = { id: 'test/hash-b', dimensions: DIM, embed: async (texts) => texts.map((t) => permute(hashed(t))) };
const registry = (def: EmbeddingProvider): EmbeddingRegistry => ({ defaultId: def.id, get: (id) => [modelA, modelB].find((m) => m.id === id), list: () => [modelA, modelB] });
/** The exact A → B map (the same permutation), with a confidence as a trained translation would report. */
const translator: Translator = {
  find: async (_tenant, from, to) => (from === modelA.id && to === modelB.id ? { id: 'tr_test_a_b', confidence: 0.9, apply: permute } : null),
};

describe('automatic translation in the federated query', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await addConnector(t, 'notion-a', 'notion');
    await upsertDocuments(
      { ...t.deps, embeddings: registry(modelA) },
      {
        tenantId: 'default',
        connectorId: 'notion-a',
        embed: 'inline',
        documents: [
          { external_id: 'n1', title: 'Quarterly budget forecast', content: 'budget forecast for the quarter and revenue plan' },
          { external_id: 'n2', title: 'Office plants', content: 'water the office plants on monday' },
        ],
      },
    );
  });
  after(() => t.close());

  const principal = { kind: 'bootstrap' as const, id: 'k', tenantId: 'default', userId: 'tester', permissions: new Set(['query' as const]) };

  it('compares documents of another model through the translation and reports its confidence', async () => {
    const deps = { ...t.deps, embeddings: registry(modelB), federation: createFederationService(t.config, { translator }) };
    const res = await runFederatedQuery(deps, principal, { query: 'budget forecast', user_id: 'u1', include_reasoning: true });
    const top = res.items[0]!;
    assert.equal(top.metadata.external_id, 'n1');
    assert.equal(top.metadata.embedding_model, 'test/hash-a');
    assert.equal(top.federation_confidence, 0.9);
    assert.ok(top.semantic_similarity > 0.5, `similarity in the query space: ${top.semantic_similarity}`);
    const why = top.reasoning as { translation: { applied: boolean; translation_id: string; from: string; to: string } };
    assert.deepEqual(why.translation, { applied: true, from: 'test/hash-a', to: 'test/hash-b', translation_id: 'tr_test_a_b' });
  });

  it('keeps lexical scores only, with confidence 0, when no translation is registered', async () => {
    const deps = { ...t.deps, embeddings: registry(modelB), translations: undefined, federation: createFederationService(t.config, { translator: { find: async () => null } }) };
    const res = await runFederatedQuery(deps, principal, { query: 'budget forecast', user_id: 'u2' });
    const top = res.items[0]!;
    assert.equal(top.metadata.external_id, 'n1');
    assert.equal(top.federation_confidence, 0);
    assert.equal(top.semantic_similarity, 0);
  });

  it('reports confidence 1 for documents of the query model', async () => {
    const deps = { ...t.deps, embeddings: registry(modelA), federation: createFederationService(t.config) };
    const res = await runFederatedQuery(deps, principal, { query: 'budget forecast', user_id: 'u3' });
    assert.equal(res.items[0]!.federation_confidence, 1);
    assert.ok(res.items[0]!.semantic_similarity > 0.5);
  });
  it('does not serve a cached answer once a translation is trained, retrained or deleted', async () => {
    const deps = { ...t.deps, embeddings: registry(modelB), federation: createFederationService(t.config, { translator }) };
    const ask = async () => ((await runFederatedQuery(deps, principal, { query: 'budget forecast', user_id: 'u4', include_reasoning: true })).reasoning as { cache: string }).cache;
    assert.equal(await ask(), 'miss');
    assert.equal(await ask(), 'hit');
    await t.db.query(
      `INSERT INTO translations (id, tenant_id, source_model, target_model, kind, source_dim, target_dim, confidence, sample_count, params)
       VALUES ('tr_cache_probe', 'default', 'test/hash-a', 'test/hash-b', 'linear', 64, 64, 0.9, 100, '\\x00')`,
    );
    assert.equal(await ask(), 'miss', 'trained');
    assert.equal(await ask(), 'hit');
    await t.db.query("UPDATE translations SET trained_at = now() + interval '1 second' WHERE id = 'tr_cache_probe'");
    assert.equal(await ask(), 'miss', 'retrained');
    await t.db.query("DELETE FROM translations WHERE id = 'tr_cache_probe'");
    // Back to no translation: the answer cached before the training holds again (not the one that used it).
    assert.equal(await ask(), 'hit', 'deleted');
  });
});
