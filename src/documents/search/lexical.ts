import { BM25, bm25Idf } from '../fusion.ts';
import type { DocumentsDeps } from '../types.ts';
import type { FilterPlan } from './filters.ts';
import { type Params, prepared } from './sql.ts';

/** Chunks rescored exactly per lexical top-k slot (unfiltered; filtered queries rescore 4× more). */
export const RESCORE_FACTOR = 2;

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
 * The chunk's BM25 lookup arrays (migration 012: its lexemes and their frequencies, aligned) as `t.terms` / `t.tfs`,
 * joined after chunk `c`: `FROM … chunks c CROSS JOIN LATERAL ${TF_ARRAYS} t`. The only place retrieval reads them
 * (bm25Sql scores with them). Read once per chunk: a ~1 KB chunk's row is past PostgreSQL's TOAST threshold, its
 * `terms` live out of line, and each reference to `c.terms` fetched them from the TOAST table again (once per
 * query term); `array_cat(x, '{}')` returns the fetched array itself, and OFFSET 0 keeps the subquery from being
 * folded back into the references (peers corpus, 100k chunks: −1.5 ms CPU per lexical query of ~11).
 */
const TF_ARRAYS = `(SELECT array_cat(c.terms, '{}'::text[]) AS terms, array_cat(c.tfs, '{}'::smallint[]) AS tfs OFFSET 0)`;
const TF_JOIN = ` CROSS JOIN LATERAL ${TF_ARRAYS} t`;

/**
 * BM25 of chunk `c` as one SQL expression: per query term, its frequency is looked up in the
 * chunk's aligned (terms, tfs) arrays (`t`, TF_JOIN); idf and the length normalisation are float8 parameters.
 */
function bm25Sql(stats: TermStats, p: Params): string {
  const { k1, b } = BM25;
  // idf·(k1+1)·tf/(tf+K) written as idf·(k1+1)·(1 − K/(tf+K)) so each lookup happens once per term;
  // float8 throughout (an unmarked literal such as 1.2 would make the whole sum numeric: ~2× slower).
  const norm = `(${k1 * (1 - b)}::float8 + ${p.add((k1 * b) / stats.avgLength)}::float8 * c.length)`;
  const parts = stats.terms.map(({ term, df }) => {
    const tf = `t.tfs[array_position(t.terms, ${p.add(term)}::text)]`;
    const w = p.add(bm25Idf(stats.chunkCount, df) * (k1 + 1));
    return `coalesce(${w}::float8 * (1::float8 - ${norm} / (${tf} + ${norm})), 0::float8)`;
  });
  return `(${parts.join(' + ')})`;
}

/**
 * Lexical top-k from the impact lists (migration 014) instead of scoring every matching chunk:
 * 1. `lcand`: every listed posting of the query terms, summed per chunk as idf · stored impact
 *    (a partial score: the BM25 of the chunk's listed terms with the avgdl of when they were
 *    written); the best `RESCORE_FACTOR × k` chunks go on (4× more with filters).
 * 2. `lfast`: those chunks scored exactly (the same BM25 expression as the exhaustive path, current
 *    statistics), best k. Filtered, `lpass` first keeps the best `RESCORE_FACTOR × k` of them by partial
 *    score that pass the filters (the reader's ACL included), so only as many chunks are scored exactly
 *    as without filters: the filter costs a test per candidate (the ACL on the chunk's copy), not a BM25 each.
 * 3. Bound: no chunk outside `lcand` can score above (the last partial score taken, or 0 if all
 *    were taken) + Σ idf · floor; no passing chunk of `lcand` left out of a full `lpass` above lpass's last
 *    partial + Σ idf · floor. If the k-th exact score reaches the bound, `lfast` IS the exact top-k
 *    (`lexicalExact`, computed by `impactExact` from the `lex_cands`/`lex_last`/`lex_pass*` columns).
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
  o: { tenant: string; k: number; m: number; pass: number | null; bm25: string; filters: FilterPlan; exhaustive: () => string },
): { ctes: string[]; fallback: boolean } {
  const idfs = stats.terms.map((t) => bm25Idf(stats.chunkCount, t.df));
  const terms = p.add(stats.terms.map((t) => t.term));
  const weights = p.add(idfs);
  const { docJoin, conJoin, sql: filterSql, needsDoc: filtered } = o.filters;
  const ctes = [
    `lcand AS (
      SELECT u.x AS seq, sum(q.w * u.i) AS partial
      FROM unnest(${terms}::text[], ${weights}::float8[]) AS q(term, w)
      JOIN chunk_term_stats s ON s.tenant_id = ${o.tenant} AND s.term = q.term
      CROSS JOIN LATERAL unnest(s.top_seqs, s.top_impacts) AS u(x, i)
      GROUP BY u.x ORDER BY partial DESC LIMIT ${o.m}
    )`,
    ...(o.pass === null
      ? [
          `lfast AS (
      SELECT c.id, ${o.bm25} AS score FROM lcand JOIN chunks c ON c.seq = lcand.seq${docJoin}${conJoin}${TF_JOIN}
      WHERE c.tenant_id = ${o.tenant}${filterSql}
      ORDER BY score DESC LIMIT ${o.k}
    )`,
        ]
      : [
          // Walked best partial first (the ordered subquery), each chunk tested once (filters.chunkPasses), so the walk
          // stops at the pass-th passing chunk, whatever the planner guesses about how many pass.
          `lpass AS (
      SELECT c.id, c.terms, c.tfs, c.length, l.partial FROM (SELECT seq, partial FROM lcand ORDER BY partial DESC) l
      JOIN chunks c ON c.seq = l.seq
      WHERE c.tenant_id = ${o.tenant} AND ${o.filters.chunkPasses}
      ORDER BY l.partial DESC LIMIT ${o.pass}
    )`,
          `lfast AS (SELECT c.id, ${o.bm25} AS score FROM lpass c${TF_JOIN} ORDER BY score DESC LIMIT ${o.k})`,
        ]),
  ];
  const someCut = stats.terms.some((t) => t.floor > 0);
  const longest = Math.max(0, ...stats.terms.map((t) => t.listed));
  // Filtered: when no list was cut and all postings fit in lcand, lcand holds every matching chunk, so
  // lfast is already the exact filtered top-k (however few pass) and no fallback is needed.
  const listedTotal = stats.terms.reduce((n, t) => n + t.listed, 0);
  const fallback = filtered ? someCut || listedTotal > o.m : someCut && longest < o.k;
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

/** What the statement reports about the impact-list path, read from its first row. */
export interface ImpactProbe {
  /** Chunks taken into `lcand`. */
  readonly cands: number;
  /** The last (lowest) partial score taken. */
  readonly last: number;
  /** Whether the exhaustive fallback ran. */
  readonly need: boolean;
  /** Filtered: the passing chunks taken into `lpass`, and the last (lowest) partial score among them. */
  readonly passed: number;
  readonly passLast: number;
}

/** The lexical list of a query: its CTEs (ending in `lex (id, score)`) and the BM25 expression on chunk `c`. */
export interface LexicalPlan {
  readonly ctes: readonly string[];
  /** BM25 of chunk `c`, a scalar subquery that reads its arrays once (for chunks the lexical list did not score). */
  readonly bm25: string;
  /** Set when the top-k comes from the impact lists (see impactCtes). */
  readonly impact: { readonly m: number; readonly pass: number | null; readonly floorSum: number; readonly fallback: boolean } | null;
}

/** Whether the impact-list top-k is provably the exact BM25 top-k (see impactCtes); `scores` are the lexical list's. */
export function impactExact(impact: NonNullable<LexicalPlan['impact']>, probe: ImpactProbe | null, scores: readonly number[], k: number): boolean {
  if (!probe) return true;
  if (probe.need) return true;
  const outside = probe.cands >= impact.m ? probe.last : 0;
  const bound = (impact.pass !== null && probe.passed >= impact.pass ? Math.max(outside, probe.passLast) : outside) + impact.floorSum;
  if (scores.length < k) return bound <= 0;
  return Math.min(...scores) >= bound * (1 + 1e-9);
}

/**
 * The lexical list for `query` (null when none of its words occurs in the tenant), and the tenant's chunk count
 * (read with the term statistics, for the vector path's choice without pgvector).
 */
export async function planLexical(
  deps: DocumentsDeps,
  o: { tenantId: string; language: string; query: string; k: number; tenant: string; filters: FilterPlan; p: Params; path?: 'impact' | 'exhaustive' },
): Promise<{ plan: LexicalPlan | null; corpusChunks: number }> {
  const { k, tenant, filters, p } = o;
  const stats = await queryTermStats(deps, o.tenantId, o.language, o.query);
  if (stats.terms.length === 0) return { plan: null, corpusChunks: stats.chunkCount };
  const bm25 = bm25Sql(stats, p);
  // A function: its parameter is added only if the statement uses this path. The chunks that hold any query term,
  // through the GIN index on `terms` (migration 105).
  const anyTerm = () => `c.terms && ${p.add(stats.terms.map((t) => t.term))}::text[]`;
  // Filtered, it starts from the documents that pass (their indexes, migration 052; OFFSET 0 keeps
  // the planner from starting at the full-text index, whose OR of common words can match most of
  // the corpus): the impact-list path only falls back here when few candidates pass the filter.
  const exhaustive = () =>
    filters.needsDoc
      ? `SELECT c.id, ${bm25} AS score
          FROM (${filters.passingDocs()} OFFSET 0) fd
          JOIN chunks c ON c.tenant_id = ${tenant} AND c.document_id = fd.id${TF_JOIN}
          WHERE ${anyTerm()}
          ORDER BY score DESC LIMIT ${k}`
      : `SELECT c.id, ${bm25} AS score FROM chunks c${filters.docJoin}${filters.conJoin}${TF_JOIN}
          WHERE c.tenant_id = ${tenant} AND ${anyTerm()}${filters.sql}
          ORDER BY score DESC LIMIT ${k}`;
  const scalar = `(SELECT ${bm25} FROM ${TF_ARRAYS} t)`;
  if (o.path === 'exhaustive') return { plan: { ctes: [`lex AS (${exhaustive()})`], bm25: scalar, impact: null }, corpusChunks: stats.chunkCount };
  const m = Math.min(20_000, k * RESCORE_FACTOR * (filters.needsDoc ? 4 : 1));
  const floorSum = stats.terms.reduce((sum, t) => sum + bm25Idf(stats.chunkCount, t.df) * t.floor, 0);
  const pass = filters.needsDoc ? Math.min(m, k * RESCORE_FACTOR) : null;
  const built = impactCtes(stats, p, { tenant, k, m, pass, bm25, filters, exhaustive });
  return { plan: { ctes: built.ctes, bm25: scalar, impact: { m, pass, floorSum, fallback: built.fallback } }, corpusChunks: stats.chunkCount };
}
