// Retrieval through translation, measured through the product's own retrieval code: a BEIR set is indexed
// into an in-memory PGlite store with model B (real chunker, real BM25 in SQL, real exact k-NN scan), and every
// judged query is run natively (query embedded with B) and through a translation from model A, both ways:
//   query side: the A query vector translated A → B, searched in B's index (k-NN + BM25, same fusion as native);
//   document side: the A query compared with each candidate's B vector translated B → A (what the federated
//   query did; only the BM25 candidates can be compared, since k-NN only reaches vectors of the query's model).
// Scores: dense-only (k-NN over all chunks), hybrid as /v1/search ranks it (convex fusion, DEFAULT_ALPHA), and
// as the federated query ranks it (translatedMatch: c·(0.65·semantic + 0.35·lexical) + (1 − c)·lexical).
import path from 'node:path';
import { embedPendingChunks } from '../../src/documents/embed.ts';
import { rankCandidates, retrieveCandidates } from '../../src/documents/search/index.ts';
import { storeDocuments } from '../../src/documents/store.ts';
import type { Candidate } from '../../src/documents/fusion.ts';
import { loadBeir } from '../../src/documents/eval/beir.ts';
import { mean, ndcgAt, type Qrels } from '../../src/documents/eval/metrics.ts';
import type { DocumentsDeps } from '../../src/documents/types.ts';
import type { EmbeddingProvider, EmbeddingRegistry } from '../../src/embeddings/provider.ts';
import { cosine } from '../../src/embeddings/vector.ts';
import { translatedMatch } from '../../src/federation/combine.ts';
import { migrate, openPglite } from '../../src/platform/db/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { type TranslationMap, translateVector } from '../../src/vec2vec/index.ts';
import { parseVector } from '../../src/documents/vectors.ts';
import { cachedEmbed } from './cache.ts';

const TENANT = 'default';
const SOURCE = 'eval';


/** A provider that answers from the on-disk embedding cache (embedding only what is missing). */
function cachedProvider(p: EmbeddingProvider): EmbeddingProvider {
  return { id: p.id, dimensions: p.dimensions, embed: (texts) => cachedEmbed(p, texts) };
}

export interface Side {
  /** A → B (query side) */
  readonly ab: TranslationMap;
  readonly confAB: number;
  /** B → A (document side) */
  readonly ba: TranslationMap;
  readonly confBA: number;
}

type Ranked = string[];
const docsOf = (ids: readonly string[], docOf: ReadonlyMap<string, string>, k = 10): Ranked => {
  const out: string[] = [];
  for (const id of ids) {
    const d = docOf.get(id)!;
    if (!out.includes(d)) out.push(d);
    if (out.length >= k) break;
  }
  return out;
};

export interface HybridResult {
  dataset: string;
  index_model: string;
  query_model: string;
  queries: number;
  chunks: number;
  ndcg10: Record<string, number>;
}

/**
 * Indexes `dir` with model `b` and scores the judged queries natively and through `sides` (one entry per
 * named translation pair A ↔ B). Returns nDCG@10 per variant.
 */
export async function hybridThroughTranslation(
  dir: string,
  models: { a: EmbeddingProvider; b: EmbeddingProvider },
  sides: Record<string, Side>,
): Promise<HybridResult> {
  const log = createLogger({ level: 'warn' });
  const { docs, queries, qrels } = await loadBeir(dir);
  const judged = queries.filter((q) => qrels.has(q.id));
  const db = await openPglite('memory://');
  try {
    await migrate(db, log);
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, 'api', 'eval', 'idle')`, [SOURCE, TENANT]);
    const b = cachedProvider(models.b);
    const registry: EmbeddingRegistry = { defaultId: b.id, get: (id) => (id === b.id ? b : undefined), list: () => [b] };
    const deps: DocumentsDeps = { db, log, embeddings: registry };
    for (let i = 0; i < docs.length; i += 500) {
      const batch = docs.slice(i, i + 500).map((d) => ({ external_id: d.id, title: d.title, content: d.text, document_type: 'page' }));
      await storeDocuments(deps, { tenantId: TENANT, connectorId: SOURCE, documents: batch });
    }
    const t0 = performance.now();
    await embedPendingChunks(deps, { tenantId: TENANT, model: b.id, batchSize: 512 });
    process.stderr.write(`${path.basename(dir)}: indexed with ${b.id} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const chunkRows = (
      await db.query<{ id: string; external_id: string; vec: unknown }>(
        `SELECT c.id, d.external_id, ${db.hasVector ? 'c.embedding_vec::text' : 'c.embedding'} AS vec FROM chunks c JOIN documents d ON d.id = c.document_id`,
      )
    ).rows;
    const docOf = new Map(chunkRows.map((r) => [String(r.id), String(r.external_id)]));
    const chunkIds = chunkRows.map((r) => String(r.id));
    const chunkVec = chunkRows.map((r) => parseVector(r.vec)!);
    const chunkVecById = new Map(chunkIds.map((id, i) => [id, chunkVec[i]!]));
    const chunkIndex = new Map(chunkIds.map((id, i) => [id, i]));
    const chunkVecInA = Object.fromEntries(Object.entries(sides).map(([name, s]) => [name, chunkVec.map((v) => translateVector(s.ba, v))]));

    const qa = await cachedEmbed(models.a, judged.map((q) => q.text));
    const qb = await cachedEmbed(models.b, judged.map((q) => q.text));
    const scores = new Map<string, number[]>();
    const add = (k: string, ranked: Ranked, rels: ReadonlyMap<string, number>) => {
      if (!scores.has(k)) scores.set(k, []);
      scores.get(k)!.push(ndcgAt(ranked, rels, 10));
    };
    const dense = (q: Float32Array, vecs: readonly Float32Array[]): Ranked => {
      const s = vecs.map((v, i) => [cosine(q, v), i] as const).sort((x, y) => y[0] - x[0]);
      return docsOf(s.slice(0, 200).map(([, i]) => chunkIds[i]!), docOf);
    };
    const search = (r: Awaited<ReturnType<typeof retrieveCandidates>>): Ranked =>
      docsOf(rankCandidates(r, { limit: 200 }).map((p) => p.chunk_id), docOf);
    /** The federated query's match score, best passage per document. */
    const federated = (cands: readonly Candidate[], conf: number): Ranked => {
      const maxLex = Math.max(0, ...cands.map((c) => c.lexical ?? 0));
      const scored = cands.map((c) => {
        const lex = maxLex > 0 ? (c.lexical ?? 0) / maxLex : 0;
        const sem = c.semantic === null ? null : Math.max(0, Math.min(1, c.semantic));
        return [translatedMatch(sem, conf, lex), c.id] as const;
      });
      scored.sort((x, y) => y[0] - x[0] || x[1].localeCompare(y[1]));
      return docsOf(scored.map(([, id]) => id), docOf);
    };
    const withSemantic = (r: Awaited<ReturnType<typeof retrieveCandidates>>, sem: (v: Float32Array) => number) => ({
      ...r,
      lists: 2,
      candidates: r.candidates.map((c) => {
        const v = chunkVecById.get(c.id);
        return { ...c, semantic: v ? sem(v) : null };
      }),
    });

    for (let i = 0; i < judged.length; i++) {
      if (i % 50 === 0) process.stderr.write(`${path.basename(dir)}: query ${i}/${judged.length}\n`);
      const q = judged[i]!;
      const rels = qrels.get(q.id) ?? new Map();
      const base = { tenantId: TENANT, query: q.text, limit: 10 };
      const native = await retrieveCandidates(deps, { ...base, queryVector: qb[i]!, queryModel: b.id });
      // The BM25 list is part of every hybrid retrieval: its candidates, without the vector list's.
      const lexical = { ...native, lists: 1, candidates: native.candidates.filter((c) => c.lexRank !== null).map((c) => ({ ...c, semantic: null, vecRank: null })) };
      add('lexical', search(lexical), rels);
      add('native dense', dense(qb[i]!, chunkVec), rels);
      add('native hybrid', search(native), rels);
      add('native federated', federated(native.candidates, 1), rels);
      for (const [name, s] of Object.entries(sides)) {
        const tq = translateVector(s.ab, qa[i]!);
        add(`${name} query-side dense`, dense(tq, chunkVec), rels);
        add(`${name} doc-side dense`, dense(qa[i]!, chunkVecInA[name]!), rels);
        const viaQuery = await retrieveCandidates(deps, { ...base, queryVector: tq, queryModel: b.id });
        add(`${name} query-side hybrid`, search(viaQuery), rels);
        add(`${name} query-side federated`, federated(viaQuery.candidates, s.confAB), rels);
        add(`${name} query-side federated, no confidence damping`, federated(viaQuery.candidates, 1), rels);
        const qRerank = withSemantic(lexical, (v) => cosine(tq, v));
        add(`${name} query-side on BM25 candidates, hybrid`, search(qRerank), rels);
        add(`${name} query-side on BM25 candidates, federated`, federated(qRerank.candidates, s.confAB), rels);
        const inA = chunkVecInA[name]!;
        const dRerank = { ...lexical, lists: 2, candidates: lexical.candidates.map((c) => ({ ...c, semantic: cosine(qa[i]!, inA[chunkIndex.get(c.id)!]!) })) };
        add(`${name} doc-side on BM25 candidates, hybrid`, search(dRerank), rels);
        add(`${name} doc-side on BM25 candidates, federated`, federated(dRerank.candidates, s.confBA), rels);
      }
    }
    const r4 = (v: number) => Math.round(v * 10000) / 10000;
    return {
      dataset: path.basename(dir),
      index_model: models.b.id,
      query_model: models.a.id,
      queries: judged.length,
      chunks: chunkIds.length,
      ndcg10: Object.fromEntries([...scores].map(([k, v]) => [k, r4(mean(v))])),
    };
  } finally {
    await db.close();
  }
}

export type { Qrels };
