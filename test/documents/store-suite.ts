import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bm25Score } from '../../src/documents/fusion.ts';
import {
  countDocuments,
  type DocumentsDeps,
  deleteConnectorDocuments,
  deleteDocuments,
  EMBED_JOB_KIND,
  embedJobHandler,
  embedPendingChunks,
  getDocument,
  listExternalIds,
  searchPassages,
  upsertDocuments,
} from '../../src/documents/index.ts';
import { HYBRID_VECTOR_DEPTH, retrieveCandidates } from '../../src/documents/search/index.ts';
import type { SearchRequest } from '../../src/documents/types.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { silentLog } from '../support/db.ts';
import { hashEmbedder, registryOf } from './hash-embedder.ts';

const T = 'default';
const SRC = 'api-suite';
const docs = [
  { external_id: 'car', title: 'Fleet', content: 'The company car must be returned with a full tank.', updated_at: '2026-01-10T00:00:00Z', author: 'ops' },
  { external_id: 'doc', title: 'Health', content: 'Visit the doctor for the yearly checkup; the doctor bills the insurer.', updated_at: '2026-03-01T00:00:00Z', author: 'hr' },
  { external_id: 'tea', title: 'Kitchen', content: 'Green tea and black tea are in the left cupboard.', updated_at: '2026-02-01T00:00:00Z', author: 'ops' },
];

/**
 * The impact lists (migration 014) against a recount from the chunks: every listed posting is a
 * chunk of the same tenant that contains the term (nothing orphaned, no duplicates), seqs and impacts
 * stay aligned, impacts lie in BM25's (0, k1 + 1], and a list whose floor is 0 lists exactly the
 * term's postings. A floor > 0 means the list was cut; its entries are then not below the floor.
 */
export async function impactListsAreConsistent(db: DatabaseExecutor): Promise<void> {
  const shape = await db.query(
    `SELECT tenant_id, term FROM chunk_term_stats
     WHERE cardinality(top_seqs) <> cardinality(top_impacts)
        OR cardinality(top_seqs) <> (SELECT count(DISTINCT x) FROM unnest(top_seqs) x)
        OR EXISTS (SELECT 1 FROM unnest(top_impacts) i WHERE NOT (i > 0 AND i <= 2.2))
        OR EXISTS (SELECT 1 FROM unnest(top_impacts) i WHERE i < top_floor)
        OR (top_floor = 0 AND cardinality(top_seqs) <> df)`,
  );
  assert.deepEqual(shape.rows, [], 'lists are aligned, duplicate-free, not below their floor, complete when the floor is 0');
  const orphans = await db.query(
    `SELECT s.tenant_id, s.term, x.seq FROM chunk_term_stats s, unnest(s.top_seqs) x(seq)
     WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.seq = x.seq AND c.tenant_id = s.tenant_id AND s.term = ANY(c.terms))`,
  );
  assert.deepEqual(orphans.rows, [], 'every listed posting is a chunk of the same tenant containing the term');
  const missing = await db.query(
    `SELECT c.tenant_id, u.term, c.seq FROM chunks c, unnest(c.terms) u(term)
     JOIN chunk_term_stats s ON s.term = u.term
     WHERE s.tenant_id = c.tenant_id AND s.top_floor = 0 AND NOT (c.seq = ANY(s.top_seqs))`,
  );
  assert.deepEqual(missing.rows, [], 'a list with floor 0 holds every posting of its term');
}

/** The documents storage and search contract, run against one backend. */
export function documentsStorageSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>): void {
  describe(`documents storage and search on ${name}`, () => {
    let db: DatabaseExecutor;
    let close: () => Promise<void>;
    let deps: DocumentsDeps;
    before(async () => {
      ({ db, close } = await open());
      await db.query("INSERT INTO tenants (id, name) VALUES ('other', 'other') ON CONFLICT DO NOTHING");
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, 'default', 'api', 'suite')`, [SRC]);
      deps = { db, log: silentLog, embeddings: registryOf(hashEmbedder('test/hash-64d', 64), hashEmbedder('test/other-32d', 32)), hnswMinVectors: 0 };
    });
    after(() => close());

    const statsAreExact = async () => {
      const drift = await db.query(
        `WITH truth AS (SELECT c.tenant_id, u.term, count(*)::int AS df FROM chunks c, unnest(c.terms) u(term) GROUP BY 1, 2)
         SELECT coalesce(t.term, s.term) AS term FROM truth t FULL JOIN chunk_term_stats s ON s.tenant_id = t.tenant_id AND s.term = t.term
         WHERE t.df IS DISTINCT FROM s.df`,
      );
      assert.deepEqual(drift.rows, [], 'document frequencies match the chunks');
      const corpus = await db.query<{ a: number; b: number; c: number; d: number }>(
        `SELECT (SELECT coalesce(sum(chunk_count), 0)::int FROM chunk_corpus_stats) a, (SELECT count(*)::int FROM chunks) b,
                (SELECT coalesce(sum(total_length), 0)::int FROM chunk_corpus_stats) c, (SELECT coalesce(sum(length), 0)::int FROM chunks) d`,
      );
      assert.equal(corpus.rows[0]?.a, corpus.rows[0]?.b);
      assert.equal(corpus.rows[0]?.c, corpus.rows[0]?.d);
      await impactListsAreConsistent(db);
    };

    it('upserts through a durable embed job and finds by meaning as well as by words', async () => {
      const r = await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: docs });
      assert.equal(r.added, 3);
      assert.ok(r.embed_job_id);
      const lexicalFirst = await searchPassages(deps, { tenantId: T, query: 'doctor checkup', limit: 5 });
      assert.equal(lexicalFirst[0]?.external_id, 'doc', 'full-text works before vectors exist');
      assert.equal(lexicalFirst[0]?.semantic_score, null);

      const worker = createWorker({ db, log: silentLog, handlers: new Map([[EMBED_JOB_KIND, embedJobHandler(deps)]]), concurrency: 1, pollMs: 50 });
      assert.equal(await worker.drain(), 1);
      const job = await db.query<{ status: string; progress: number }>('SELECT status, progress FROM jobs WHERE id = $1', [r.embed_job_id]);
      assert.deepEqual(job.rows[0], { status: 'completed', progress: 1 });
      const d = await db.query<{ embedding_model: string }>('SELECT embedding_model FROM documents WHERE tenant_id = $1 ORDER BY external_id', [T]);
      assert.deepEqual(d.rows.map((x) => x.embedding_model), ['test/hash-64d', 'test/hash-64d', 'test/hash-64d']);

      // "automobile" shares no word with the car document: only the vector path can find it.
      const byMeaning = await searchPassages(deps, { tenantId: T, query: 'automobile', limit: 3, mode: 'vector' });
      assert.equal(byMeaning[0]?.external_id, 'car');
      assert.ok((byMeaning[0]?.semantic_score ?? 0) > 0.2);
      assert.equal(byMeaning[0]?.vector?.length, 64);
      const hybrid = await searchPassages(deps, { tenantId: T, query: 'automobile tank', limit: 3 });
      assert.equal(hybrid[0]?.external_id, 'car');
      assert.ok((hybrid[0]?.lexical_score ?? 0) > 0 && (hybrid[0]?.semantic_score ?? 0) > 0);
      // Every semantic score is the cosine of the passage's vector and the query's (pgvector computes it
      // in SQL; without pgvector the app computes it from the returned vectors).
      const qv = (await hashEmbedder('test/hash-64d', 64).embed(['automobile tank']))[0]!;
      for (const p of hybrid) {
        const v = p.vector;
        assert.ok(v && p.semantic_score !== null, `${p.external_id} has a vector and a score`);
        assert.ok(Math.abs(p.semantic_score - v.reduce((s, x, i) => s + x * qv[i]!, 0)) < 1e-5, `${p.external_id}: ${p.semantic_score}`);
      }
      const rrf = await searchPassages(deps, { tenantId: T, query: 'physician', limit: 3, fusion: 'rrf' });
      assert.equal(rrf[0]?.external_id, 'doc');
      await statsAreExact();
    });

    it('resumes an embed run that crashed between batches: progress continues and every document gets marked', async () => {
      const batch = ['r1', 'r2', 'r3'].map((id) => ({ external_id: id, title: `Resume ${id}`, content: `resume test ${id} body` }));
      const r = await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: batch });
      const ids = r.documents.map((d) => d.id);
      // The first attempt writes one batch of vectors, then dies (kill -9) before marking any document.
      const crash = new Error('killed');
      await assert.rejects(
        embedPendingChunks(deps, { tenantId: T, documentIds: ids, batchSize: 1, onProgress: () => Promise.reject(crash) }),
        (e) => e === crash,
      );
      const half = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE id = ANY($1::text[]) AND embedding_model IS NOT NULL', [ids]);
      assert.equal(half.rows[0]?.n, 0, 'nothing marked by the crashed attempt');
      const seen: { done: number; total: number }[] = [];
      const out = await embedPendingChunks(deps, { tenantId: T, documentIds: ids, batchSize: 1, resumedFrom: { done: 1, total: 3 }, onProgress: (p) => void seen.push(p) });
      assert.equal(out.embedded, 3, 'counted across both attempts');
      assert.deepEqual(seen, [{ done: 2, total: 3 }, { done: 3, total: 3 }]);
      const marked = await db.query<{ embedding_model: string | null }>('SELECT embedding_model FROM documents WHERE id = ANY($1::text[])', [ids]);
      assert.deepEqual(marked.rows.map((x) => x.embedding_model), ['test/hash-64d', 'test/hash-64d', 'test/hash-64d'], 'including the one the crashed attempt embedded');
      await deleteDocuments(deps, { tenantId: T, connectorId: SRC, externalIds: ['r1', 'r2', 'r3'] });
    });

    it('takes concurrent pushes of the same new documents: both succeed, one set of chunks', async () => {
      const batch = Array.from({ length: 20 }, (_, i) => ({ external_id: `race-${i}`, title: `Race ${i}`, content: `concurrent push number ${i}` }));
      const changed = batch.map((d) => ({ ...d, content: `${d.content}, second version` }));
      const results = await Promise.all([
        upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: batch }),
        upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: batch }),
        upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: changed }),
      ]);
      assert.equal(results.reduce((n, r) => n + r.added, 0), 20, 'each document added once');
      const dup = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT document_id, ordinal FROM chunks WHERE tenant_id = $1 GROUP BY 1, 2 HAVING count(*) > 1) x`,
        [T],
      );
      assert.equal(dup.rows[0]?.n, 0);
      const docsNow = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1 AND external_id LIKE 'race-%'", [T]);
      assert.equal(docsNow.rows[0]?.n, 20);
      await statsAreExact();
      await deleteDocuments(deps, { tenantId: T, connectorId: SRC, externalIds: batch.map((d) => d.external_id) });
      await statsAreExact();
    });

    it('without pgvector on a large tenant, hybrid search scores the lexical candidates instead of scanning every vector', async (t) => {
      if (db.hasVector) return t.skip('pgvector present: the HNSW index serves the vector list');
      const large = { ...deps, noPgvectorScanMax: 0 };
      const hybrid = await searchPassages(large, { tenantId: T, query: 'automobile tank', limit: 3 });
      assert.equal(hybrid[0]?.external_id, 'car', 'found by its words');
      assert.ok((hybrid[0]?.semantic_score ?? 0) > 0, 'and scored by meaning');
      const qv = (await hashEmbedder('test/hash-64d', 64).embed(['automobile tank']))[0]!;
      for (const p of hybrid) {
        const v = p.vector;
        assert.ok(v && p.semantic_score !== null && Math.abs(p.semantic_score - v.reduce((s, x, i) => s + x * qv[i]!, 0)) < 1e-5, `${p.external_id}: cosine of its vector`);
      }
      const lexicalOnly = (await searchPassages(large, { tenantId: T, query: 'tank checkup', limit: 10 })).map((x) => x.external_id).sort();
      assert.deepEqual(lexicalOnly, ['car', 'doc'], 'no chunk arrives through a vector list of its own');
      assert.ok((await searchPassages(deps, { tenantId: T, query: 'tank checkup', limit: 10 })).length > 2, 'a small tenant keeps its vector list');
      // A query none of whose words occur has no lexical list: the scan is then the only way to answer,
      // as it is for vector search asked for explicitly.
      assert.equal((await searchPassages(large, { tenantId: T, query: 'automobile', limit: 3 }))[0]?.external_id, 'car');
      assert.equal((await searchPassages(large, { tenantId: T, query: 'automobile', limit: 3, mode: 'vector' }))[0]?.external_id, 'car');
    });

    it('without pgvector, a full vector scan of a large tenant runs under a statement timeout', async (t) => {
      if (db.hasVector) return t.skip('pgvector present: no full scans');
      await db.query("INSERT INTO tenants (id, name) VALUES ('scan', 'scan') ON CONFLICT DO NOTHING");
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-scan', 'scan', 'api', 'scan')`);
      // Enough chunks that comparing the query with every vector takes well over a millisecond.
      for (let i = 0; i < 3000; i += 1000) {
        const batch = Array.from({ length: 1000 }, (_, k) => ({ external_id: `s${i + k}`, title: `Bay ${i + k}`, content: `the car in bay ${i + k} of the depot` }));
        await upsertDocuments(deps, { tenantId: 'scan', connectorId: 'api-scan', documents: batch, embed: 'inline' });
      }
      const bounded = { ...deps, noPgvectorScanMax: 100, noPgvectorScanTimeoutMs: 1 };
      // "automobile" occurs nowhere: hybrid has no lexical list, and vector search asks for the scan.
      await assert.rejects(searchPassages(bounded, { tenantId: 'scan', query: 'automobile', limit: 3, mode: 'vector' }), (err: Error & { status?: number }) => {
        assert.equal(err.status, 504);
        assert.match(err.message, /3000 in this tenant.*install pgvector/);
        return true;
      });
      assert.deepEqual(await searchPassages(bounded, { tenantId: 'scan', query: 'automobile', limit: 3 }), [], 'hybrid answers nothing instead');
      const unbounded = { ...deps, noPgvectorScanMax: 100 };
      assert.equal((await searchPassages(unbounded, { tenantId: 'scan', query: 'automobile', limit: 3, mode: 'vector' })).length, 3, 'within the default timeout');
      assert.equal((await searchPassages(bounded, { tenantId: 'scan', query: 'car depot', limit: 3 })).length, 3, 'queries with a lexical list never scan');
    });

    it('computes BM25 in SQL exactly as the reference formula', async () => {
      const [hit] = await searchPassages(deps, { tenantId: T, query: 'tea cupboard', limit: 1, mode: 'lexical' });
      assert.ok(hit);
      const chunk = await db.query<{ terms: string[]; tfs: number[]; length: number }>('SELECT terms, tfs, length FROM chunks WHERE id = $1', [hit.chunk_id]);
      const corpus = await db.query<{ n: number; total: number }>('SELECT chunk_count::int AS n, total_length::int AS total FROM chunk_corpus_stats WHERE tenant_id = $1', [T]);
      const df = await db.query<{ term: string; df: number }>("SELECT term, df FROM chunk_term_stats WHERE tenant_id = $1 AND term IN ('tea', 'cupboard')", [T]);
      const row = chunk.rows[0];
      const c = corpus.rows[0];
      assert.ok(row && c);
      const terms = df.rows.map((t) => ({ tf: Number(row.tfs[row.terms.indexOf(t.term)] ?? 0), df: t.df }));
      const expected = bm25Score(terms, row.length, { chunkCount: c.n, avgLength: c.total / c.n });
      assert.ok(Math.abs(hit.lexical_score - expected) < 1e-6, `${hit.lexical_score} vs ${expected}`);
      assert.equal(Number(row.tfs[row.terms.indexOf('tea')]), 2, "'tea' occurs twice");
    });

    it('is a no-op for unchanged content and re-embeds changed content', async () => {
      const before = await db.query<{ id: string }>('SELECT id FROM chunks ORDER BY id');
      const same = await upsertDocuments(deps, { tenantId: T, connectorId: SRC, documents: docs });
      assert.deepEqual([same.added, same.updated, same.unchanged, same.embed_job_id], [0, 0, 3, null]);
      assert.deepEqual((await db.query<{ id: string }>('SELECT id FROM chunks ORDER BY id')).rows, before.rows);

      const changed = await upsertDocuments(deps, {
        tenantId: T,
        connectorId: SRC,
        documents: [{ ...docs[2], content: 'Coffee beans are in the right cupboard.' } as (typeof docs)[number]],
        embed: 'inline',
      });
      assert.equal(changed.updated, 1);
      const tea = await searchPassages(deps, { tenantId: T, query: 'green tea', limit: 5, mode: 'lexical' });
      assert.ok(!tea.some((p) => p.external_id === 'tea'), 'old chunks are gone');
      const coffee = await searchPassages(deps, { tenantId: T, query: 'coffee beans', limit: 1 });
      assert.equal(coffee[0]?.external_id, 'tea');
      assert.ok(coffee[0]?.semantic_score !== null, 'inline mode embedded the new chunk');
      await statsAreExact();
    });

    it('filters by time, author and source, and keeps tenants apart', async () => {
      const after = await searchPassages(deps, { tenantId: T, query: 'doctor car tank cupboard', limit: 10, mode: 'lexical', filters: { after: '2026-02-15T00:00:00Z' } });
      assert.deepEqual(after.map((p) => p.external_id), ['doc']);
      const ops = await searchPassages(deps, { tenantId: T, query: 'doctor car tank cupboard', limit: 10, filters: { authors: ['ops'] } });
      assert.deepEqual(new Set(ops.map((p) => p.external_id)), new Set(['car', 'tea']));
      assert.equal((await searchPassages(deps, { tenantId: T, query: 'doctor', limit: 5, sources: ['elsewhere'] })).length, 0);

      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-o', 'other', 'api', 'o')`);
      const o = await upsertDocuments(deps, { tenantId: 'other', connectorId: 'api-o', documents: [{ external_id: 'car', title: 'Other fleet', content: 'Their doctor drives a car.' }], embed: 'inline' });
      const mine = await searchPassages(deps, { tenantId: T, query: 'doctor car', limit: 10 });
      assert.ok(mine.every((p) => p.source_node === SRC));
      assert.equal(await getDocument(db, T, o.documents[0]?.id ?? ''), null);
      assert.equal((await getDocument(db, 'other', o.documents[0]?.id ?? ''))?.title, 'Other fleet');
      assert.equal(await countDocuments(db, T, SRC), 3);
      assert.equal(await countDocuments(db, 'other'), 1);
      await statsAreExact();
    });

    it('leaves vectors of another model unscored instead of comparing across spaces', async () => {
      const res = await searchPassages(deps, { tenantId: T, query: 'doctor', limit: 5, queryModel: 'test/other-32d' });
      assert.ok(res.length > 0);
      assert.ok(res.every((p) => p.semantic_score === null && p.embedding_model === 'test/hash-64d'));
    });

    it('writes vectors with the chunks, without a job, when the model is cheap enough for the request path', async () => {
      const fast = { ...hashEmbedder('test/inline-48d', 48), inline: true };
      const q = { ...deps, embeddings: registryOf(fast) };
      const SRC2 = 'api-inline';
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, 'default', 'api', 'inline')`, [SRC2]);
      const long = `${'Physician rota and on-call schedule for the clinic. '.repeat(40)}`;
      const batch = [
        { external_id: 'a', title: 'Rota', content: long },
        { external_id: 'b', title: 'Parking', content: 'The vehicle park closes at nine.' },
      ];
      const models = async () =>
        (
          await db.query<{ external_id: string; model: string | null; chunks: number; missing: number }>(
            `SELECT d.external_id, d.embedding_model AS model, count(c.id)::int AS chunks, count(c.id) FILTER (WHERE c.embedding_model IS NULL)::int AS missing
             FROM documents d JOIN chunks c ON c.document_id = d.id WHERE d.source_node = $1 GROUP BY 1, 2 ORDER BY 1`,
            [SRC2],
          )
        ).rows;
      const r = await upsertDocuments(q, { tenantId: T, connectorId: SRC2, documents: batch });
      assert.equal(r.added, 2);
      assert.equal(r.embed_job_id, null, 'no job: the vectors are already there');
      const first = await models();
      assert.ok((first[0]?.chunks ?? 0) > 1, 'the long document has several chunks');
      assert.deepEqual(first.map((x) => [x.external_id, x.model, x.missing]), [['a', 'test/inline-48d', 0], ['b', 'test/inline-48d', 0]]);
      const jobs = await db.query("SELECT 1 FROM jobs WHERE kind = 'documents.embed' AND payload::text LIKE '%inline%'");
      assert.equal(jobs.rows.length, 0);
      // The same vectors the job path would make (the text is title + chunk), found by meaning.
      const hit = await searchPassages(q, { tenantId: T, query: 'vehicle park closes', limit: 1, mode: 'vector', sources: [SRC2] });
      assert.equal(hit[0]?.external_id, 'b');
      assert.equal(hit[0]?.embedding_model, 'test/inline-48d');
      const [expected] = await fast.embed(['Parking\n\nThe vehicle park closes at nine.']);
      const got = [...(hit[0]?.vector ?? [])];
      assert.equal(got.length, 48);
      assert.ok(got.every((x, i) => Math.abs(x - (expected?.[i] ?? Number.NaN)) < 1e-5), 'the stored vector is the model output for title + chunk');

      // A metadata-only change keeps the vectors; a content change replaces them in the same transaction.
      await upsertDocuments(q, { tenantId: T, connectorId: SRC2, documents: [{ ...batch[1], author: 'facilities' } as (typeof batch)[number]] });
      assert.equal((await models())[1]?.model, 'test/inline-48d');
      await upsertDocuments(q, { tenantId: T, connectorId: SRC2, documents: [{ ...batch[1], content: 'Bicycles go in the basement.' } as (typeof batch)[number]] });
      assert.deepEqual((await models())[1], { external_id: 'b', model: 'test/inline-48d', chunks: 1, missing: 0 });
      await statsAreExact();
      await deleteConnectorDocuments(q, { tenantId: T, connectorId: SRC2 });
    });

    it('reads the vector list shallower than the lexical one in hybrid mode, unless candidates are given', async () => {
      const SRC3 = 'api-depth';
      await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ($1, 'default', 'api', 'depth')`, [SRC3]);
      const many = Array.from({ length: 150 }, (_, i) => ({ external_id: `m${i}`, title: `Memo ${i}`, content: `Quarterly memo number ${i} about budget item ${i % 7}.` }));
      await upsertDocuments(deps, { tenantId: T, connectorId: SRC3, documents: many, embed: 'inline' });
      const depth = async (req: Partial<SearchRequest>) => {
        const r = await retrieveCandidates(deps, { tenantId: T, query: 'quarterly budget memo', limit: 5, sources: [SRC3], ...req });
        return [r.rows.filter((x) => x.in_lex).length, r.rows.filter((x) => x.in_vec).length];
      };
      assert.deepEqual(await depth({}), [100, HYBRID_VECTOR_DEPTH.min], 'hybrid: lexical 100, vector 30');
      assert.deepEqual(await depth({ limit: 20 }), [100, 60], 'vector depth 3 × limit');
      assert.deepEqual(await depth({ candidates: 120 }), [120, 120], 'explicit candidates set both');
      assert.deepEqual(await depth({ mode: 'vector' }), [0, 100], 'vector mode reads the full depth');

      // A selective filter: the vector list is scored exactly over the passing documents' chunks
      // (default) or taken from the HNSW scan (exactVectorBelow 0); both give the same list here.
      await upsertDocuments(deps, {
        tenantId: T,
        connectorId: SRC3,
        documents: many.slice(0, 6).map((d, i) => ({ ...d, author: i % 2 ? 'bea' : 'al' })),
        embed: 'inline',
      });
      const vectorList = async (exactVectorBelow?: number) => {
        const r = await retrieveCandidates(
          { ...deps, ...(exactVectorBelow === undefined ? {} : { exactVectorBelow }) },
          { tenantId: T, query: 'budget memo', limit: 5, mode: 'vector', sources: [SRC3], filters: { authors: ['al'] } },
        );
        const ids = await db.query<{ id: string; external_id: string }>('SELECT c.id, d.external_id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY($1::text[])', [
          r.rows.map((x) => x.chunk_id),
        ]);
        const external = new Map(ids.rows.map((x) => [x.id, x.external_id]));
        return r.rows.map((x) => [String(external.get(x.chunk_id)), Number(x.semantic).toFixed(6)]).sort();
      };
      const exact = await vectorList();
      assert.deepEqual(exact.map(([id]) => id), ['m0', 'm2', 'm4'], 'only the passing documents');
      assert.deepEqual(await vectorList(0), exact, 'the HNSW branch agrees');
      await deleteConnectorDocuments(deps, { tenantId: T, connectorId: SRC3 });
    });

    it('deletes documents with their chunks and vectors', async () => {
      assert.deepEqual(await listExternalIds(db, T, SRC), ['car', 'doc', 'tea']);
      assert.equal((await deleteDocuments(deps, { tenantId: T, connectorId: SRC, externalIds: ['car', 'nope'] })).deleted, 1);
      assert.deepEqual(await listExternalIds(db, T, SRC), ['doc', 'tea']);
      await statsAreExact();
      assert.equal((await deleteConnectorDocuments(deps, { tenantId: T, connectorId: SRC })).deleted, 2);
      const left = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1', [T]);
      assert.equal(left.rows[0]?.n, 0);
      await statsAreExact();
      assert.equal((await db.query("SELECT 1 FROM chunk_term_stats WHERE tenant_id = 'default'")).rows.length, 0);
      assert.equal(await countDocuments(db, 'other'), 1, 'the other tenant is untouched');
    });
  });
}
