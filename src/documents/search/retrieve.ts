import { Errors } from '../../platform/errors.ts';
import { aclCondition, effectiveViewer } from '../acl.ts';
import { resolveSettings } from '../settings.ts';
import type { DocumentsDeps, SearchRequest } from '../types.ts';
import { annNoteStage, annStageKey, annStartsWide } from './ann-plan.ts';
import { planFilters } from './filters.ts';
import { impactExact, type LexicalPlan, planLexical } from './lexical.ts';
import { queryVector } from './query-vector.ts';
import type { RetrievedCandidates } from './rank.ts';
import { candidateRows, candidatesOf, impactProbe, type SqlCandidateRow } from './rows.ts';
import { Params, prepared, vectorText } from './sql.ts';
import { planVector, type VectorPlan } from './vector.ts';

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

const EMPTY: RetrievedCandidates = { rows: [], candidates: [], lists: 0 };

/** The planned statement of one query: its SQL and parameters, and how to run it. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly lexical: LexicalPlan | null;
  readonly vector: VectorPlan | null;
  /** The lexical depth k. */
  readonly k: number;
  readonly lists: number;
}

/**
 * The candidates' ids and scores from the lists the CTEs build (and their vectors where the statement has a vector
 * side: fusion's feedback and, without pgvector, the cosine read them). No text: the passages' content and document
 * fields are read for the returned passages only (passages.ts), not for every candidate (~100-130 rows).
 */
function candidateSql(o: { tenant: string; rowAcl: string | null; lexical: LexicalPlan | null; vector: VectorPlan | null; vecText: string | null }): string {
  const { lexical, vector } = o;
  const useVec = vector !== null;
  const vecList = vector?.list === true;
  const ctes = [...(lexical?.ctes ?? []), ...(vector?.ctes ?? [])];
  const sources = [lexical ? 'SELECT id FROM lex' : null, vecList ? 'SELECT id FROM vec' : null].filter(Boolean).join(' UNION ');
  const lexScore = lexical ? (useVec ? `coalesce(lex.score, ${lexical.bm25})` : 'lex.score') : '0::float8';
  const impact = lexical?.impact;
  const impactCols = impact
    ? `(SELECT count(*) FROM lcand) AS lex_cands, (SELECT min(partial) FROM lcand) AS lex_last, ${impact.fallback ? '(SELECT need FROM lex_need)' : 'false'} AS lex_need,${
        impact.pass !== null ? ' (SELECT count(*) FROM lpass) AS lex_pass, (SELECT min(partial) FROM lpass) AS lex_pass_last,' : ''
      }`
    : '';
  return `WITH ${ctes.join(',\n')}, ids AS (${sources})
    SELECT c.id AS chunk_id, c.document_id, c.embedding_model AS chunk_model,${useVec && o.vecText ? ` ${o.vecText} AS vec,` : ''}
           ${lexScore} AS lexical, ${vector?.semanticSql ?? 'NULL::float8'} AS semantic,
           ${lexical ? 'lex.id IS NOT NULL' : 'false'} AS in_lex, ${impactCols} ${vecList ? 'c.id IN (SELECT id FROM vec)' : 'false'} AS in_vec
    FROM ids JOIN chunks c ON c.id = ids.id${lexical ? ' LEFT JOIN lex ON lex.id = c.id' : ''}
    WHERE c.tenant_id = ${o.tenant}${o.rowAcl ? ` AND ${o.rowAcl}` : ''}`;
}

/**
 * Plans the one statement of a hybrid query: BM25 over the full-text index (corpus statistics kept in SQL) and k-NN
 * over the query model's vectors (pgvector HNSW, or an exact dot-product scan where pgvector is absent), both
 * restricted by the filters and the reader's view before their LIMIT. Null when the query has no list at all.
 */
export async function planStatement(deps: DocumentsDeps, req: SearchRequest, opts: { annWide?: boolean } = {}): Promise<Statement | null> {
  const mode = req.mode ?? 'hybrid';
  const limit = Math.max(1, Math.min(1000, Math.floor(req.limit)));
  const depths = req.candidates === undefined ? defaultDepths(limit) : null;
  const k = depths ? depths.lexical : Math.max(limit, req.candidates ?? limit);
  const query = req.query.trim();
  const qv = await queryVector(deps, req, query);
  const useLex = mode !== 'vector' && query.length > 0;
  if (!useLex && !qv) return null;

  const p = new Params();
  const tenant = p.add(req.tenantId);
  const viewer = await effectiveViewer(deps.db, req.tenantId, req.viewer);
  const filters = planFilters(req, viewer, tenant, p);
  // When the probe in effectiveViewer let the candidate paths skip the filter (no restricted document then), the
  // returned rows are still checked with the reader's own view: a restricted document stored between the probe and
  // this statement is never returned. Filtered, every candidate list already applied it.
  const rowAcl = viewer === req.viewer ? null : aclCondition(req.viewer, (v) => p.add(v), 'c');
  const lex = useLex
    ? await planLexical(deps, { tenantId: req.tenantId, language: resolveSettings(deps).ftsLanguage, query, k, tenant, filters, p, path: req.lexicalPath })
    : null;
  const lexical = lex?.plan ?? null;
  if (!lexical && !qv) return null;
  // An explicit `candidates` sets both depths; so does a query with no lexical list.
  const depth = lexical && depths ? depths.vector : k;
  const vector = qv
    ? await planVector(deps, { ...qv, depth, tenant, tenantId: req.tenantId, filters, p, lexical: lexical !== null, corpusChunks: lex?.corpusChunks ?? null, annWide: opts.annWide })
    : null;
  // The candidates' vectors are read where fusion's feedback (two lists) or the app's cosine (no pgvector) needs them;
  // a vector-only query reads them for its returned passages only (passages.ts): ~1.4 ms CPU less at depth 100.
  const readVectors = (lexical !== null && vector !== null) || vector?.appCosine != null;
  const sql = candidateSql({ tenant, rowAcl, lexical, vector, vecText: readVectors ? vectorText(deps.db) : null });
  return { sql, params: p.values, lexical, vector, k, lists: (lexical ? 1 : 0) + (vector ? 1 : 0) };
}

/** Runs the statement: in a transaction with the HNSW settings (pgvector), under a timeout (a large scan), or as is. */
async function runStatement(deps: DocumentsDeps, st: Statement, mode: string): Promise<SqlCandidateRow[]> {
  const { db } = deps;
  const scan = st.vector?.boundedScan;
  if (scan) return scanWithin(deps, st, scan, mode);
  const ef = st.vector?.efSearch;
  // Each statement costs ~1 ms of fixed CPU in embedded PGlite: the HNSW settings go in one exec,
  // and a query without the vector path needs no transaction at all.
  if (ef) {
    return db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL hnsw.ef_search = ${ef}; SET LOCAL hnsw.iterative_scan = relaxed_order`);
      return (await prepared(tx)<SqlCandidateRow>(st.sql, st.params)).rows;
    });
  }
  return (await prepared(db)<SqlCandidateRow>(st.sql, st.params)).rows;
}

/**
 * Runs a full vector scan (no pgvector) under `statement_timeout`. Cancelled (57014): a hybrid query, whose words
 * matched nothing, answers no candidates; vector search, which asked for the scan, is a 504 saying what to do.
 */
async function scanWithin(deps: DocumentsDeps, st: Statement, scan: { chunks: number; ms: number }, mode: string): Promise<SqlCandidateRow[]> {
  try {
    return await deps.db.transaction(async (tx) => {
      await tx.exec(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(scan.ms))}`);
      return (await tx.query<SqlCandidateRow>(st.sql, st.params)).rows;
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

/** The fused candidate set of one query (one SQL round trip after the term statistics), before ranking. */
export async function retrieveCandidates(deps: DocumentsDeps, req: SearchRequest): Promise<RetrievedCandidates> {
  const stageKey = annStageKey(req);
  let st = await planStatement(deps, req, { annWide: annStartsWide(deps.db, stageKey) });
  if (!st) return EMPTY;
  let raw = await runStatement(deps, st, req.mode ?? 'hybrid');
  req.signal?.throwIfAborted();
  const widenBelow = st.vector?.widenBelow;
  if (widenBelow) {
    // The embedded graph's shallow filtered stage found fewer passing chunks than the list's depth: again, wide.
    const short = raw.filter((r) => r.in_vec === true).length < widenBelow;
    annNoteStage(deps.db, stageKey, short);
    if (short) {
      st = (await planStatement(deps, req, { annWide: true })) ?? st;
      raw = await runStatement(deps, st, req.mode ?? 'hybrid');
      req.signal?.throwIfAborted();
    }
  }
  const rows = candidateRows(raw, st.vector?.appCosine ?? null);
  const impact = st.lexical?.impact;
  const lexScores = rows.filter((r) => r.in_lex).map((r) => r.lexical ?? 0);
  const lexicalExact = impact ? impactExact(impact, impactProbe(raw), lexScores, st.k) : true;
  return { rows, candidates: candidatesOf(rows), lists: st.lists, lexicalExact };
}
