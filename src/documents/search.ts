import type { EmbeddingProvider } from '../embeddings/provider.ts';
import { cosine, hasDirection } from '../embeddings/vector.ts';
import type { Queryable } from '../platform/db/index.ts';
import { resolveProvider } from './embed.ts';
import { DEFAULT_FEEDBACK, rocchioCandidates, rowVectors, type VectorFeedback } from './feedback.ts';
import { BM25, bm25Idf, type Candidate, convexScores, ranks, rrfScore } from './fusion.ts';
import { aclCondition, effectiveViewer } from './acl.ts';
import { resolveSettings } from './settings.ts';
import type { DocumentsDeps, FusionMethod, Passage, SearchRequest } from './types.ts';
import { parseVector, vectorLiteral } from './vectors.ts';
import { Errors } from '../platform/errors.ts';
import { timeoutSignal } from '../platform/abort.ts';

/** Fusion used when the request does not name one; chosen by measurement (docs/retrieval.md). */
export const DEFAULT_FUSION: FusionMethod = 'convex';
/** Weight of the semantic score in the convex combination (docs/retrieval.md). */
export const DEFAULT_ALPHA = 0.4;

class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function filterSql(req: SearchRequest, p: Params): { sql: string; needsDoc: boolean; needsConnector: boolean } {
  const parts: string[] = [];
  let needsConnector = false;
  const f = req.filters ?? {};
  // The reader's ACL view is one more filter on the candidate set: every path (lexical, vector, fallbacks) applies
  // it before its LIMIT, so top-k is the reader's top-k and nothing they may not read is scored or counted.
  const acl = aclCondition(req.viewer, (v) => p.add(v));
  if (acl) parts.push(acl);
  if (req.sources?.length) parts.push(`d.source_node = ANY(${p.add([...req.sources])}::text[])`);
  if (f.after) parts.push(`coalesce(d.updated_at, d.created_at, d.ingested_at) >= ${p.add(f.after)}::timestamptz`);
  if (f.before) parts.push(`coalesce(d.updated_at, d.created_at, d.ingested_at) < ${p.add(f.before)}::timestamptz`);
  if (f.authors?.length) parts.push(`d.author = ANY(${p.add([...f.authors])}::text[])`);
  const types = [...(f.types ?? []), ...(f.document_types ?? [])];
  if (types.length) parts.push(`d.document_type = ANY(${p.add(types)}::text[])`);
  if (f.connector_types?.length) {
    needsConnector = true;
    parts.push(`k.connector_type = ANY(${p.add([...f.connector_types])}::text[])`);
  }
  return { sql: parts.map((x) => ` AND ${x}`).join(''), needsDoc: parts.length > 0, needsConnector };
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A lexeme as a tsquery operand: quoted, with quotes doubled and backslashes escaped. */
export const quoteLexeme = (t: string) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

interface TermStats {
  readonly terms: readonly { term: string; df: number; floor: number; listed: number }[];
  readonly chunkCount: number;
  readonly avgLength: number;
}

/** The query's lexemes that occur in the tenant's corpus, with their document frequencies. */
async function queryTermStats(deps: DocumentsDeps, tenantId: string, language: string, query: string): Promise<TermStats> {
  const r = await prepared(deps.db)<{ term: string; df: number; floor: number; listed: number; chunk_count: number; total_length: number }>(
    `SELECT s.term, s.df, s.top_floor AS floor, cardinality(s.top_seqs) AS listed, cs.chunk_count, cs.total_length
     FROM chunk_term_stats s JOIN chunk_corpus_stats cs ON cs.tenant_id = s.tenant_id
     WHERE s.tenant_id = $1 AND s.df > 0 AND s.term = ANY(tsvector_to_array(to_tsvector($2::regconfig, $3)))
     ORDER BY s.term`,
    [tenantId, language, query],
  );
  const first = r.rows[0];
  const chunkCount = Number(first?.chunk_count ?? 0);
  return {
    terms: r.rows.map((row) => ({ term: row.term, df: Number(row.df), floor: Number(row.floor), listed: Number(row.listed) })),
    chunkCount,
    avgLength: Math.max(1, Number(first?.total_length ?? 0) / Math.max(1, chunkCount)),
  };
}

/**
 * `query` through a server-side prepared statement where the executor offers one (embedded PGlite):
 * the statements below keep their text to the query's shape (number of terms, filters, mode, k),
 * with terms, idfs and corpus statistics as parameters, so planning happens once per shape.
 */
function prepared(db: Queryable): Queryable['query'] {
  return db.queryPrepared ? db.queryPrepared.bind(db) : db.query.bind(db);
}

/**
 * BM25 of chunk `c` as one SQL expression: per query term, its frequency is looked up in the
 * chunk's aligned (terms, tfs) arrays; idf and the length normalisation are float8 parameters.
 */
function bm25Sql(stats: TermStats, p: Params): string {
  const { k1, b } = BM25;
  // idf·(k1+1)·tf/(tf+K) written as idf·(k1+1)·(1 − K/(tf+K)) so each lookup happens once per term;
  // float8 throughout (an unmarked literal such as 1.2 would make the whole sum numeric: ~2× slower).
  const norm = `(${k1 * (1 - b)}::float8 + ${p.add((k1 * b) / stats.avgLength)}::float8 * c.length)`;
  const parts = stats.terms.map(({ term, df }) => {
    const tf = `c.tfs[array_position(c.terms, ${p.add(term)}::text)]`;
    const w = p.add(bm25Idf(stats.chunkCount, df) * (k1 + 1));
    return `coalesce(${w}::float8 * (1::float8 - ${norm} / (${tf} + ${norm})), 0::float8)`;
  });
  return `(${parts.join(' + ')})`;
}

/**
 * Default depth of the vector list in hybrid mode, per result asked for (at least 30): shallower than
 * the lexical list (4 × limit, at least 100), because with the lexical candidates also scored by
 * cosine, deeper vector candidates did not change nDCG@10 on either eval set while the HNSW scan
 * grows with its depth (docs/retrieval.md, "Candidate depth").
 */
export const HYBRID_VECTOR_DEPTH = { perResult: 3, min: 30 } as const;

/** The candidate depths of a hybrid query for `limit` results when the request names none. */
export function defaultDepths(limit: number): { lexical: number; vector: number } {
  const lexical = Math.max(limit, 100, limit * 4);
  return { lexical, vector: Math.max(limit, Math.min(lexical, Math.max(HYBRID_VECTOR_DEPTH.min, limit * HYBRID_VECTOR_DEPTH.perResult))) };
}

/**
 * With filters, the vector list is scored exactly (no HNSW) when fewer documents than this pass them
 * (docs/retrieval.md, "Filters and the vector list"). `DocumentsDeps.exactVectorBelow` overrides it.
 */
export const EXACT_VECTOR_BELOW = 1000;

/**
 * Without pgvector, the vector list is an exact SQL dot product over every chunk (~90 µs a chunk on
 * PostgreSQL 15: 2 s at 22k chunks). Above this many chunks in the tenant, hybrid search takes no
 * vector list of its own: the lexical candidates get their cosine (fusion and feedback work on them).
 * Vector-only search, asked for explicitly, still scans.
 */
export const NO_PGVECTOR_SCAN_MAX = 2000;

/**
 * A scan that does happen above NO_PGVECTOR_SCAN_MAX chunks (vector-only search, or a hybrid query none of
 * whose words occur) runs under this statement_timeout: ~1 s at 100k chunks on PostgreSQL 15 here, so a
 * larger tenant's typo queries cannot each hold a backend's CPU for many seconds (node-postgres does not
 * cancel a statement its caller gave up on). Cancelled, hybrid answers nothing and vector search is a 504.
 */
export const NO_PGVECTOR_SCAN_TIMEOUT_MS = 2000;

/** Chunks rescored exactly per lexical top-k slot (unfiltered; filtered queries rescore 4× more). */
export const RESCORE_FACTOR = 2;

/**
 * Lexical top-k from the impact lists (migration 014) instead of scoring every matching chunk:
 * 1. `lcand`: every listed posting of the query terms, summed per chunk as idf · stored impact
 *    (a partial score: the BM25 of the chunk's listed terms with the avgdl of when they were
 *    written); the best `RESCORE_FACTOR × k` chunks go on (4× more with filters).
 * 2. `lfast`: those chunks, filtered, scored exactly (the same BM25 expression as the exhaustive
 *    path, current statistics), best k.
 * 3. Bound: no chunk outside `lcand` can score above (the last partial score taken, or 0 if all
 *    were taken) + Σ idf · floor. If the k-th exact score reaches it, `lfast` IS the exact top-k
 *    (`lexicalExact`, computed by `impactExact` from the `lex_cands`/`lex_last` columns).
 * 4. `lex`: `lfast`, or, only where it can be needed, the exhaustive path: with filters when fewer
 *    than k of the candidates pass them and lcand may have missed a matching chunk (a list was cut,
 *    or lcand did not take every listed posting); without filters when fewer than k could be listed (short
 *    lists after deletions). The branch is gated by a one-time filter, so it costs nothing when not
 *    taken. Queries whose bound fails keep `lfast`, filtered or not (approximate in its last places;
 *    docs/retrieval.md measures how often).
 * Exactness ignores the drift of avgdl since the stored impacts were written.
 */
function impactCtes(
  stats: TermStats,
  p: Params,
  o: { tenant: string; k: number; m: number; bm25: string; docJoin: string; conJoin: string; filterSql: string; filtered: boolean; exhaustive: () => string },
): { ctes: string[]; fallback: boolean } {
  const idfs = stats.terms.map((t) => bm25Idf(stats.chunkCount, t.df));
  const terms = p.add(stats.terms.map((t) => t.term));
  const weights = p.add(idfs);
  const ctes = [
    `lcand AS (
      SELECT u.x AS seq, sum(q.w * u.i) AS partial
      FROM unnest(${terms}::text[], ${weights}::float8[]) AS q(term, w)
      JOIN chunk_term_stats s ON s.tenant_id = ${o.tenant} AND s.term = q.term
      CROSS JOIN LATERAL unnest(s.top_seqs, s.top_impacts) AS u(x, i)
      GROUP BY u.x ORDER BY partial DESC LIMIT ${o.m}
    )`,
    `lfast AS (
      SELECT c.id, ${o.bm25} AS score FROM lcand JOIN chunks c ON c.seq = lcand.seq${o.docJoin}${o.conJoin}
      WHERE c.tenant_id = ${o.tenant}${o.filterSql}
      ORDER BY score DESC LIMIT ${o.k}
    )`,
  ];
  const someCut = stats.terms.some((t) => t.floor > 0);
  const longest = Math.max(0, ...stats.terms.map((t) => t.listed));
  // Filtered: when no list was cut and all postings fit in lcand, lcand holds every matching chunk, so
  // lfast is already the exact filtered top-k (however few pass) and no fallback is needed.
  const listedTotal = stats.terms.reduce((n, t) => n + t.listed, 0);
  const fallback = o.filtered ? someCut || listedTotal > o.m : someCut && longest < o.k;
  if (!fallback) {
    ctes.push('lex AS (SELECT id, score FROM lfast)');
    return { ctes, fallback };
  }
  ctes.push(
    `lex_need AS (SELECT ((SELECT count(*) FROM lfast) < ${o.k}) AS need)`,
    `lex AS (
      SELECT id, score FROM lfast WHERE NOT (SELECT need FROM lex_need)
      UNION ALL
      SELECT e.id, e.score FROM (${o.exhaustive()}) e WHERE (SELECT need FROM lex_need)
    )`,
  );
  return { ctes, fallback };
}

/** Whether the impact-list top-k is provably the exact BM25 top-k (see impactCtes). */
function impactExact(rows: readonly Record<string, unknown>[], k: number, m: number, floorSum: number): boolean {
  const first = rows[0];
  if (!first) return true;
  if (first.lex_need === true) return true;
  const cands = Number(first.lex_cands ?? 0);
  const bound = (cands >= m ? Number(first.lex_last ?? 0) : 0) + floorSum;
  const scores = rows.filter((r) => r.in_lex).map((r) => Number(r.lexical));
  if (scores.length < k) return bound <= 0;
  return Math.min(...scores) >= bound * (1 + 1e-9);
}

/**
 * Hybrid retrieval in one SQL round-trip: BM25 over the full-text index (corpus statistics kept in
 * SQL) and k-NN over the query model's vectors (pgvector HNSW, or an exact dot-product scan where
 * pgvector is absent), then fused in the app. Every returned passage carries its lexical score,
 * its cosine to the query (null when its vector is in another model's space) and the fused score.
 */
export async function searchPassages(deps: DocumentsDeps, req: SearchRequest): Promise<Passage[]> {
  const retrieved = await retrieveCandidates(deps, req);
  return rankCandidates(retrieved, { fusion: req.fusion, alpha: req.alpha, feedback: req.feedback, limit: req.limit });
}

/** The fused candidate set of one query before ranking (the eval ranks it several ways). */
export interface RetrievedCandidates {
  readonly rows: readonly Record<string, unknown>[];
  readonly candidates: readonly Candidate[];
  readonly lists: number;
  /** False when the lexical top-k came from the impact lists without a proof that it is exact. */
  readonly lexicalExact?: boolean;
}

const EMPTY: RetrievedCandidates = { rows: [], candidates: [], lists: 0 };

/** How long hybrid search waits for the query's vector (a remote model) before answering from BM25 alone. */
export const QUERY_EMBED_TIMEOUT_MS = 3000;

/**
 * The query's vector. With `fallback` (hybrid search, the federated query) a model that fails or is slow
 * (a remote API down, a missing optional package) costs only the vector list: null after at most
 * `timeoutMs`, and a warning is logged. Without it (vector mode, which has nothing else to offer) the
 * error is passed on, as is the caller's own abort.
 */
export async function embedQuery(
  deps: Pick<DocumentsDeps, 'log'>,
  provider: EmbeddingProvider,
  query: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; fallback: boolean },
): Promise<Float32Array | null> {
  const { signal } = opts;
  if (!opts.fallback) return (await provider.embed([query], signal))[0] ?? null;
  const timeout = timeoutSignal(opts.timeoutMs ?? QUERY_EMBED_TIMEOUT_MS);
  try {
    return (await provider.embed([query], signal ? AbortSignal.any([signal, timeout]) : timeout))[0] ?? null;
  } catch (err) {
    if (signal?.aborted) throw err;
    deps.log?.warn({ err, model: provider.id }, 'the query could not be embedded: answering from full-text search only');
    return null;
  }
}

export async function retrieveCandidates(deps: DocumentsDeps, req: SearchRequest): Promise<RetrievedCandidates> {
  const { db } = deps;
  const settings = resolveSettings(deps);
  const mode = req.mode ?? 'hybrid';
  const limit = Math.max(1, Math.min(1000, Math.floor(req.limit)));
  const depths = req.candidates === undefined ? defaultDepths(limit) : null;
  const k = depths ? depths.lexical : Math.max(limit, req.candidates ?? limit);
  const query = req.query.trim();

  let qvec: Float32Array | null = null;
  let qmodel: string | null = null;
  if (mode !== 'lexical') {
    if (req.queryVector) {
      qvec = Float32Array.from(req.queryVector);
      qmodel = req.queryModel ?? deps.embeddings?.defaultId ?? null;
    } else if (deps.embeddings && query) {
      const provider = resolveProvider(deps, req.queryModel);
      qvec = await embedQuery(deps, provider, query, { signal: req.signal, timeoutMs: deps.queryEmbedTimeoutMs, fallback: mode !== 'vector' });
      qmodel = provider.id;
    }
  }
  // A query with no word the model knows embeds to the zero vector: no direction, so no vector list (its
  // cosine is undefined; pgvector would answer NaN). Hybrid is then lexical; vector mode finds nothing.
  if (qvec && !hasDirection(qvec)) qvec = null;
  const useLex = mode !== 'vector' && query.length > 0;
  const useVec = qvec !== null && qmodel !== null && qvec.length > 0;
  if (!useLex && !useVec) return EMPTY;

  const p = new Params();
  const tenant = p.add(req.tenantId);
  const viewer = await effectiveViewer(db, req.tenantId, req.viewer);
  const filters = filterSql({ ...req, viewer }, p);
  // Also on the returned rows, with the reader's own view: a restricted document stored between the probe in
  // effectiveViewer and this statement is never returned (the candidate paths skipped the filter for speed).
  const rowAcl = aclCondition(req.viewer, (v) => p.add(v));
  const docJoin = filters.needsDoc ? ' JOIN documents d ON d.id = c.document_id AND d.tenant_id = c.tenant_id' : '';
  const conJoin = filters.needsConnector ? ' LEFT JOIN connectors k ON k.id = d.source_node AND k.tenant_id = d.tenant_id' : '';
  // The documents that pass the filters (filtered exhaustive BM25, the exact vector list); `gate` is a
  // one-time condition put in front.
  const passingDocs = (gate = '') => `SELECT d.id FROM documents d${conJoin} WHERE ${gate}d.tenant_id = ${tenant}${filters.sql}`;
  const ctes: string[] = [];
  let bm25 = '0::float8';
  let lexical = false;
  let impact: { m: number; floorSum: number; fallback: boolean } | null = null;
  let corpusChunks: number | null = null;
  if (useLex) {
    const stats = await queryTermStats(deps, req.tenantId, settings.ftsLanguage, query);
    corpusChunks = stats.chunkCount;
    if (stats.terms.length > 0) {
      lexical = true;
      bm25 = bm25Sql(stats, p);
      // A function: its tsquery parameter is added only if the statement uses this path.
      const tsquery = () => `${p.add(stats.terms.map((t) => quoteLexeme(t.term)).join(' | '))}::tsquery`;
      // Filtered, it starts from the documents that pass (their indexes, migration 052; OFFSET 0 keeps
      // the planner from starting at the full-text index, whose OR of common words can match most of
      // the corpus): the impact-list path only falls back here when few candidates pass the filter.
      const exhaustive = () =>
        filters.needsDoc
          ? `SELECT c.id, ${bm25} AS score
          FROM (${passingDocs()} OFFSET 0) fd
          JOIN chunks c ON c.tenant_id = ${tenant} AND c.document_id = fd.id
          WHERE c.fts @@ ${tsquery()}
          ORDER BY score DESC LIMIT ${k}`
          : `SELECT c.id, ${bm25} AS score FROM chunks c${docJoin}${conJoin}
          WHERE c.tenant_id = ${tenant} AND c.fts @@ ${tsquery()}${filters.sql}
          ORDER BY score DESC LIMIT ${k}`;
      if (req.lexicalPath === 'exhaustive') {
        ctes.push(`lex AS (${exhaustive()})`);
      } else {
        const m = Math.min(20_000, k * RESCORE_FACTOR * (filters.needsDoc ? 4 : 1));
        const floorSum = stats.terms.reduce((sum, t) => sum + bm25Idf(stats.chunkCount, t.df) * t.floor, 0);
        const built = impactCtes(stats, p, { tenant, k, m, bm25, docJoin, conJoin, filterSql: filters.sql, filtered: filters.needsDoc, exhaustive });
        ctes.push(...built.ctes);
        impact = { m, floorSum, fallback: built.fallback };
      }
    }
  }
  // An explicit `candidates` sets both depths; so does a query with no lexical list.
  const vk = lexical && depths ? depths.vector : k;
  let simExpr = 'NULL::float8';
  // As text: both pgvector's '[…]' and real[]'s '{…}' parse fast in parseVector (node-postgres's own
  // float4[] parser was the largest CPU cost of a federated query on PostgreSQL).
  const vecText = db.hasVector ? 'c.embedding_vec::text' : 'c.embedding::text';
  // Without pgvector the returned chunks' cosines are computed here from their vectors, not in SQL
  // (an unnest per row cost PostgreSQL more than the rest of the statement).
  let appCosine: { model: string; vector: Float32Array } | null = null;
  // Whether the statement has a vector list (`vec`); without it, semantic scores are still computed
  // for the lexical candidates.
  let vecList = useVec;
  /** Set when the statement scans every vector of a large tenant (no pgvector): it then runs under a timeout. */
  let boundedScan: { chunks: number; ms: number } | null = null;
  if (useVec && qvec && qmodel) {
    const dims = qvec.length;
    const model = sqlString(qmodel);
    if (db.hasVector) {
      const v = `${p.add(vectorLiteral(qvec, true))}::vector(${dims})`;
      const dist = (alias: string) => `(${alias}.embedding_vec::vector(${dims}) <=> ${v})`;
      simExpr = `CASE WHEN c.embedding_model = ${model} AND vector_dims(c.embedding_vec) = ${dims} THEN 1 - ${dist('c')} END`;
      const hnsw = (gate = '') => `SELECT c.id FROM chunks c${docJoin}${conJoin}
          WHERE ${gate}c.tenant_id = ${tenant} AND c.embedding_model = ${model}${filters.sql}
          ORDER BY ${dist('c')} LIMIT ${vk}`;
      const exactBelow = deps.exactVectorBelow ?? EXACT_VECTOR_BELOW;
      if (!filters.needsDoc || exactBelow <= 0) {
        ctes.push(`vec AS (${hnsw()})`);
      } else {
        // A selective filter starves the HNSW scan: it walks the graph until enough chunks pass, at
        // most hnsw.max_scan_tuples (20,000) of them, so it gets slow and can even come back short.
        // When few documents pass, their chunks are scored exactly instead (found through the
        // filter's indexes; `+ 0` keeps the planner off the HNSW ordering). One-time filters gate
        // the two branches, so only one runs.
        ctes.push(
          `vec_exact AS (
            SELECT count(*) < ${exactBelow} AS yes FROM (${passingDocs()} LIMIT ${exactBelow}) x
          )`,
          `vec AS (
            (${hnsw('NOT (SELECT yes FROM vec_exact) AND ')})
            UNION ALL
            (SELECT c.id FROM (${passingDocs('(SELECT yes FROM vec_exact) AND ')} OFFSET 0) fd
             JOIN chunks c ON c.tenant_id = ${tenant} AND c.document_id = fd.id
             WHERE c.embedding_model = ${model}
             ORDER BY ${dist('c')} + 0 LIMIT ${vk})
          )`,
        );
      }
    } else {
      appCosine = { model: qmodel, vector: qvec };
      const dot = (alias: string) => `(SELECT sum(a * b) FROM unnest(${alias}.embedding, ${p.add(vectorLiteral(qvec, false))}::real[]) AS t(a, b))`;
      const scanMax = deps.noPgvectorScanMax ?? NO_PGVECTOR_SCAN_MAX;
      if (lexical && corpusChunks !== null && corpusChunks > scanMax) vecList = false;
      else {
        // Without a lexical list the tenant's size is not known yet (queryTermStats found no term, or did not run).
        const chunks = lexical && corpusChunks !== null ? corpusChunks : await tenantChunkCount(db, req.tenantId);
        if (chunks > scanMax) boundedScan = { chunks, ms: deps.noPgvectorScanTimeoutMs ?? NO_PGVECTOR_SCAN_TIMEOUT_MS };
        ctes.push(
        `vec AS (
          SELECT c.id FROM chunks c${docJoin}${conJoin}
          WHERE c.tenant_id = ${tenant} AND c.embedding_model = ${model} AND cardinality(c.embedding) = ${dims}${filters.sql}
          ORDER BY ${dot('c')} DESC LIMIT ${vk}
        )`,
        );
      }
    }
  }
  if (!lexical && !useVec) return EMPTY;
  const sources = [lexical ? 'SELECT id FROM lex' : null, vecList ? 'SELECT id FROM vec' : null].filter(Boolean).join(' UNION ');
  const sql = `WITH ${ctes.join(',\n')}, ids AS (${sources})
    SELECT c.id AS chunk_id, c.ordinal, c.heading, c.content, c.document_id, c.embedding_model AS chunk_model,
           ${vecText} AS vec, ${lexical ? (useVec ? `coalesce(lex.score, ${bm25})` : 'lex.score') : '0::float8'} AS lexical, ${simExpr} AS semantic,
           ${lexical ? 'lex.id IS NOT NULL' : 'false'} AS in_lex, ${impact ? `(SELECT count(*) FROM lcand) AS lex_cands, (SELECT min(partial) FROM lcand) AS lex_last, ${impact.fallback ? '(SELECT need FROM lex_need)' : 'false'} AS lex_need,` : ''} ${vecList ? 'c.id IN (SELECT id FROM vec)' : 'false'} AS in_vec,
           d.source_node, d.external_id, d.title, d.url, d.author, d.document_type, d.created_at, d.updated_at, d.ingested_at, d.metadata, d.acl,
           k.connector_type
    FROM ids JOIN chunks c ON c.id = ids.id${lexical ? ' LEFT JOIN lex ON lex.id = c.id' : ''}
    JOIN documents d ON d.id = c.document_id AND d.tenant_id = c.tenant_id
    LEFT JOIN connectors k ON k.id = d.source_node AND k.tenant_id = d.tenant_id
    WHERE c.tenant_id = ${tenant}${rowAcl ? ` AND ${rowAcl}` : ''}`;

  // Each statement costs ~1 ms of fixed CPU in embedded PGlite: the HNSW settings go in one exec,
  // and a query without the vector path needs no transaction at all.
  const rows = boundedScan
    ? await scanWithin(deps, sql, p.values, boundedScan, mode)
    : useVec && db.hasVector
      ? await db.transaction(async (tx) => {
          await tx.exec(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, vk * 2))}; SET LOCAL hnsw.iterative_scan = relaxed_order`);
          return (await prepared(tx)<Record<string, unknown>>(sql, p.values)).rows;
        })
      : (await prepared(db)<Record<string, unknown>>(sql, p.values)).rows;
  req.signal?.throwIfAborted();
  if (appCosine) {
    const { model, vector } = appCosine;
    for (const r of rows) {
      const v = r.chunk_model === model ? parseVector(r.vec) : null;
      // Parsed once: rankCandidates' feedback reads the same vector.
      r.vec = v;
      r.semantic = v && v.length === vector.length ? cosine(v, vector) : null;
    }
  }

  // A chunk stored with the zero vector (no known word) has no cosine: NaN from pgvector becomes null.
  const num = (v: unknown): number | null => {
    if (v === null || v === undefined) return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  };
  const lexRanks = ranks(rows.filter((r) => r.in_lex).map((r) => ({ id: String(r.chunk_id), score: num(r.lexical) ?? 0 })));
  const vecRanks = ranks(rows.filter((r) => r.in_vec).map((r) => ({ id: String(r.chunk_id), score: num(r.semantic) ?? -1 })));
  const candidates: Candidate[] = rows.map((r) => {
    const id = String(r.chunk_id);
    return { id, lexical: num(r.lexical), semantic: num(r.semantic), lexRank: lexRanks.get(id) ?? null, vecRank: vecRanks.get(id) ?? null };
  });
  const lexicalExact = impact ? impactExact(rows, k, impact.m, impact.floorSum) : true;
  return { rows, candidates, lists: (lexical ? 1 : 0) + (useVec ? 1 : 0), lexicalExact };
}

async function tenantChunkCount(db: Queryable, tenantId: string): Promise<number> {
  const r = await db.query<{ n: number | string }>('SELECT chunk_count AS n FROM chunk_corpus_stats WHERE tenant_id = $1', [tenantId]);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * Runs a full vector scan (no pgvector) under `statement_timeout`. Cancelled (57014): a hybrid query, whose words
 * matched nothing, answers no candidates; vector search, which asked for the scan, is a 504 saying what to do.
 */
async function scanWithin(deps: DocumentsDeps, sql: string, params: readonly unknown[], scan: { chunks: number; ms: number }, mode: string): Promise<Record<string, unknown>[]> {
  try {
    return await deps.db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(scan.ms))}`);
      return (await tx.query<Record<string, unknown>>(sql, params)).rows;
    });
  } catch (err) {
    if ((err as { code?: unknown }).code !== '57014') throw err;
    if (mode === 'vector') {
      throw Errors.timeout(
        `vector search without pgvector compares the query with every chunk (${scan.chunks} in this tenant) and took longer than ${scan.ms} ms: install pgvector on the PostgreSQL server, or search in hybrid mode`,
      );
    }
    deps.log?.warn({ chunks: scan.chunks, ms: scan.ms }, 'no query word occurs and the vector scan (no pgvector) timed out: no candidates');
    return [];
  }
}

/** Orders candidates by the fused score (RRF or the convex combination) and shapes passages. */
export function rankCandidates(
  retrieved: RetrievedCandidates,
  opts: { fusion?: FusionMethod; alpha?: number; feedback?: VectorFeedback | false; limit: number },
): Passage[] {
  const { rows, candidates: cands, lists } = retrieved;
  const limit = Math.max(1, Math.min(1000, Math.floor(opts.limit)));
  const fusion = opts.fusion ?? DEFAULT_FUSION;
  // Vector pseudo-relevance feedback (feedback.ts) changes only the fusion input; passages keep cos(q, c).
  const feedback = opts.feedback ?? DEFAULT_FEEDBACK;
  const vectors = feedback && lists > 1 ? rowVectors(rows) : null;
  const scored = vectors && feedback ? rocchioCandidates(cands, vectors, feedback) : cands;
  const fused = fusion === 'rrf' ? new Map(scored.map((c) => [c.id, rrfScore(c, lists)])) : convexScores(scored, opts.alpha ?? DEFAULT_ALPHA);
  const byId = new Map(rows.map((r) => [String(r.chunk_id), r]));
  const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());
  return cands
    .map((c) => ({ c, score: fused.get(c.id) ?? 0 }))
    .sort((a, b) => b.score - a.score || (b.c.lexical ?? 0) - (a.c.lexical ?? 0) || a.c.id.localeCompare(b.c.id))
    .slice(0, limit)
    .map(({ c, score }): Passage => {
      const r = byId.get(c.id) ?? {};
      return {
        chunk_id: c.id,
        ordinal: Number(r.ordinal),
        heading: (r.heading as string | null) ?? null,
        content: String(r.content),
        document_id: String(r.document_id),
        source_node: String(r.source_node),
        connector_type: (r.connector_type as string | null) ?? null,
        external_id: String(r.external_id),
        title: String(r.title),
        url: (r.url as string | null) ?? null,
        author: (r.author as string | null) ?? null,
        document_type: String(r.document_type),
        created_at: iso(r.created_at),
        updated_at: iso(r.updated_at),
        ingested_at: iso(r.ingested_at),
        metadata: (r.metadata as Record<string, unknown> | null) ?? {},
        acl: r.acl ?? null,
        lexical_score: c.lexical ?? 0,
        semantic_score: c.semantic,
        fused_score: Math.max(0, Math.min(1, score)),
        embedding_model: (r.chunk_model as string | null) ?? null,
        vector: vectors?.get(c.id) ?? parseVector(r.vec),
      };
    });
}
