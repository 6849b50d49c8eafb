import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runEval } from '../../src/documents/eval/run.ts';
import { DEFAULT_FEEDBACK } from '../../src/documents/feedback.ts';
import { DEFAULT_ALPHA } from '../../src/documents/search/index.ts';
import { silentLog } from '../support/db.ts';
import { hashEmbedder, registryOf } from './hash-embedder.ts';

/**
 * The eval through its real pipeline (PGlite, chunking, embedding, one hybrid retrieval per query):
 * a relevant document that shares no word with the query but several with the top BM25 passage is
 * found only through vector feedback (hash embedder: unrelated words have cosine ~0).
 */
describe('eval: vector pseudo-relevance feedback', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-feedback-eval-'));
    const docs = [
      ['b', 'blue ocean waves crash on sandy beaches'],
      ['d', 'blue waves crash over sandy beaches at dawn'],
      ['e1', 'quarterly budget spreadsheet review'],
      ['e2', 'kitchen recipe with garlic and onions'],
      ['e3', 'compiler optimisation of tight loops'],
      ['e4', 'violin lessons for young children'],
      ['e5', 'mountain hiking boots and gear'],
    ];
    await fs.writeFile(path.join(dir, 'corpus.jsonl'), docs.map(([id, text]) => JSON.stringify({ _id: id, title: '', text })).join('\n'));
    await fs.writeFile(path.join(dir, 'queries.jsonl'), JSON.stringify({ _id: 'q1', text: 'ocean' }));
    await fs.writeFile(path.join(dir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\tb\t1\nq1\td\t1\n');
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('reports every variant and ranks the feedback-only match second by default', async () => {
    const r = await runEval({ dataset: dir, embeddings: registryOf(hashEmbedder('test/hash-256d', 256)), log: silentLog, quiet: true });
    for (const k of ['ndcg_at_10', 'recall_at_100', 'mrr_at_10', 'p50_ms', 'p95_ms', 'docs', 'queries']) assert.ok(k in r, k);
    assert.equal(r.docs, 7);
    assert.equal(r.alpha, DEFAULT_ALPHA);
    assert.deepEqual(r.feedback, DEFAULT_FEEDBACK);
    assert.equal(r.ndcg_at_10, 1, 'b (lexical) first, d (through feedback) second');
    const plain = r.fusions.find((f) => f.fusion === 'convex' && f.alpha === DEFAULT_ALPHA && !f.feedback);
    assert.ok(plain, 'the same fusion without feedback is reported');
    assert.ok(r.fusions.some((f) => f.fusion === 'rrf' && f.feedback));
    assert.ok(r.fusions.filter((f) => f.alpha === DEFAULT_ALPHA && f.feedback).length >= 9, 'the feedback grid is reported');
    assert.ok(r.lexical.ndcg_at_10 < 1, 'BM25 alone cannot find d');
    // The corpus is smaller than search's candidate depths, so its default ranking is the same.
    const { p50_ms, p95_ms, ...depth } = r.default_depth ?? { p50_ms: -1, p95_ms: -1 };
    assert.deepEqual(depth, { lexical: 100, vector: 30, ndcg_at_10: r.ndcg_at_10, mrr_at_10: r.mrr_at_10 });
    assert.ok(p50_ms > 0 && p95_ms >= p50_ms);
    // Each mode's latency is its own retrieval's (before, every mode repeated the hybrid run's numbers).
    assert.ok(r.lexical.p50_ms > 0 && r.vector && r.vector.p50_ms > 0);
    assert.notDeepEqual([r.lexical.p50_ms, r.lexical.p95_ms], [r.p50_ms, r.p95_ms]);
  });
});
