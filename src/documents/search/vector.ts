import type { Queryable } from '../../platform/db/index.ts';
import { annServes } from '../ann/index.ts';
import type { DocumentsDeps } from '../types.ts';
import { vectorLiteral } from '../vectors.ts';
import { annPlan } from './ann-plan.ts';
import { type FilterPlan, vecOrExact } from './filters.ts';
import { type Params, sqlString } from './sql.ts';

/**
 * With filters other than the reader's ACL, the vector list is scored exactly (no HNSW) when fewer documents than
 * this pass them (docs/retrieval.md, "Filters and the vector list"). `DocumentsDeps.exactVectorBelow` overrides it
 * (0: always the HNSW walk, even when it comes back short).
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

/** The query vector's side of a statement. */
export interface VectorPlan {
  /** CTEs ending in `vec (id)`; empty when the statement has no vector list. */
  readonly ctes: readonly string[];
  /** Whether the statement has a vector list (`vec`); without it, semantic scores are still computed for the lexical candidates. */
  readonly list: boolean;
  /** The cosine of chunk `c` to the query in SQL, or `NULL::float8` when the app computes it (`appCosine`). */
  readonly semanticSql: string;
  /** Without pgvector the returned chunks' cosines are computed in the app from their vectors. */
  readonly appCosine: { readonly model: string; readonly vector: Float32Array } | null;
  /** Set when the statement scans every vector of a large tenant (no pgvector): it then runs under a timeout. */
  readonly boundedScan: { readonly chunks: number; readonly ms: number } | null;
  /** The `hnsw.ef_search` the statement runs with (pgvector), else null. */
  readonly efSearch: number | null;
  /**
   * The embedded graph's first, shallow filtered stage (ann-plan.ts): when the list holds fewer chunks than this, the
   * statement is planned again with `annWide`. Null when the list is complete as it stands.
   */
  readonly widenBelow: number | null;
}

export interface VectorInput {
  readonly vector: Float32Array;
  readonly model: string;
  /** Depth of the vector list. */
  readonly depth: number;
  readonly tenant: string;
  readonly tenantId: string;
  readonly filters: FilterPlan;
  readonly p: Params;
  /** Whether the statement has a lexical list (the vector list may then be dropped without pgvector). */
  readonly lexical: boolean;
  /** The tenant's chunk count when the lexical path read it. */
  readonly corpusChunks: number | null;
  /** A filtered list from the embedded graph asks for its wide stage at once (ann-plan.ts). */
  readonly annWide?: boolean;
}

/**
 * The vector list by pgvector. Unfiltered: the HNSW ordering. Filtered: the HNSW walk keeps only chunks whose
 * document passes (`chunkPasses`, looked up per chunk, so the planner cannot trade the walk for exact distances
 * over every passing chunk, as a generic plan of `JOIN documents … WHERE acl_principals && $n` did: 76k distances,
 * ~2 s at 100k chunks). A walk that finds fewer than `depth` chunks (a reader or filter that passes a small share:
 * `hnsw.iterative_scan` gives up after `hnsw.max_scan_tuples`), and a filter other than the ACL that passes fewer
 * than `exactVectorBelow` documents (counted first through the filters' indexes, migration 052), score the passing
 * documents' chunks exactly instead (`+ 0` keeps the planner off the HNSW ordering). One-time filters gate the
 * branches, so only the ones needed run.
 */
function pgvectorPlan(deps: DocumentsDeps, o: VectorInput): VectorPlan {
  const { filters, tenant, depth } = o;
  const dims = o.vector.length;
  const model = sqlString(o.model);
  const v = `${o.p.add(vectorLiteral(o.vector, true))}::vector(${dims})`;
  const dist = (alias: string) => `(${alias}.embedding_vec::vector(${dims}) <=> ${v})`;
  const semanticSql = `CASE WHEN c.embedding_model = ${model} AND vector_dims(c.embedding_vec) = ${dims} THEN 1 - ${dist('c')} END`;
  const base = { list: true, semanticSql, appCosine: null, boundedScan: null, efSearch: Math.max(40, Math.min(1000, depth * 2)), widenBelow: null };
  const walk = (gate = '', passes = '') => `SELECT c.id FROM chunks c
          WHERE ${gate}c.tenant_id = ${tenant} AND c.embedding_model = ${model}${passes}
          ORDER BY ${dist('c')} LIMIT ${depth}`;
  const exactBelow = deps.exactVectorBelow ?? EXACT_VECTOR_BELOW;
  if (!filters.needsDoc) return { ...base, ctes: [`vec AS (${walk()})`] };
  if (exactBelow <= 0) return { ...base, ctes: [`vec AS (${walk('', ` AND ${filters.chunkPasses}`)})`] };
  const ctes: string[] = [];
  let walkGate = '';
  if (filters.rest) {
    ctes.push(`vec_exact AS (
            SELECT count(*) < ${exactBelow} AS yes FROM (${filters.passingDocs('', false)} LIMIT ${exactBelow}) x
          )`);
    walkGate = 'NOT (SELECT yes FROM vec_exact) AND ';
  }
  // Gated off (a small filtered set), the walk finds nothing, so the exact branch runs.
  ctes.push(`vec_walk AS (${walk(walkGate, ` AND ${filters.chunkPasses}`)})`, vecOrExact('vec_walk', { filters, tenant, model, depth, dist }));
  return { ...base, ctes };
}

/** The vector list without pgvector: an exact dot product over every chunk, skipped in hybrid mode above NO_PGVECTOR_SCAN_MAX chunks. */
async function scanPlan(deps: DocumentsDeps, o: VectorInput): Promise<VectorPlan> {
  const { filters } = o;
  const dims = o.vector.length;
  const none = { semanticSql: 'NULL::float8', appCosine: { model: o.model, vector: o.vector }, efSearch: null, widenBelow: null };
  const scanMax = deps.noPgvectorScanMax ?? NO_PGVECTOR_SCAN_MAX;
  if (o.lexical && o.corpusChunks !== null && o.corpusChunks > scanMax) return { ...none, ctes: [], list: false, boundedScan: null };
  const dot = `(SELECT sum(a * b) FROM unnest(c.embedding, ${o.p.add(vectorLiteral(o.vector, false))}::real[]) AS t(a, b))`;
  // Without a lexical list the tenant's size is not known yet (the term statistics found no term, or were not read).
  const chunks = o.lexical && o.corpusChunks !== null ? o.corpusChunks : await tenantChunkCount(deps.db, o.tenantId);
  return {
    ...none,
    list: true,
    boundedScan: chunks > scanMax ? { chunks, ms: deps.noPgvectorScanTimeoutMs ?? NO_PGVECTOR_SCAN_TIMEOUT_MS } : null,
    ctes: [
      `vec AS (
          SELECT c.id FROM chunks c${filters.docJoin}${filters.conJoin}
          WHERE c.tenant_id = ${o.tenant} AND c.embedding_model = ${sqlString(o.model)} AND cardinality(c.embedding) = ${dims}${filters.sql}
          ORDER BY ${dot} DESC LIMIT ${o.depth}
        )`,
    ],
  };
}

/** The vector list of a query: the usearch graph in embedded storage, else pgvector's where the database has it, else the exact scan. */
export function planVector(deps: DocumentsDeps, o: VectorInput): Promise<VectorPlan> {
  if (annServes(deps)) return annPlan(deps, o);
  return deps.db.hasVector ? Promise.resolve(pgvectorPlan(deps, o)) : scanPlan(deps, o);
}

async function tenantChunkCount(db: Queryable, tenantId: string): Promise<number> {
  const r = await db.query<{ n: number | string }>('SELECT chunk_count AS n FROM chunk_corpus_stats WHERE tenant_id = $1', [tenantId]);
  return Number(r.rows[0]?.n ?? 0);
}
