import type { Queryable } from '../platform/db/index.ts';

/**
 * BM25 corpus statistics (chunk count, total length, document frequency per lexeme) are kept in SQL
 * and changed by the same transaction that writes or deletes chunks. Writers of one tenant take the
 * tenant's stats row lock first, so concurrent batches never deadlock on term rows.
 *
 * Each term row also holds an impact list (migration 014): postings `(chunk seq, impact)` of the
 * term, at most `2 × TOP_LIST_SIZE` entries; when longer it is cut to its best `TOP_LIST_SIZE` and
 * `top_floor` is raised to the best impact cut off, so `top_floor` always bounds the impact of every
 * posting of the term that is not listed. New postings at or below the floor are not listed.
 */
export const TOP_LIST_SIZE = 500;

export async function lockTenantStats(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query('INSERT INTO chunk_corpus_stats (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
  await tx.query('SELECT 1 FROM chunk_corpus_stats WHERE tenant_id = $1 FOR UPDATE', [tenantId]);
}

/** Adds the chunks of these documents to the statistics and impact lists (call after inserting them). */
export async function addTermStats(tx: Queryable, tenantId: string, documentIds: readonly string[], listSize = TOP_LIST_SIZE): Promise<void> {
  const corpus = await tx.query<{ avgdl: number }>(
    `UPDATE chunk_corpus_stats s SET chunk_count = s.chunk_count + a.n, total_length = s.total_length + a.len
     FROM (SELECT count(*) AS n, coalesce(sum(length), 0) AS len FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])) a
     WHERE s.tenant_id = $1
     RETURNING (s.total_length::float8 / greatest(s.chunk_count, 1)) AS avgdl`,
    [tenantId, documentIds],
  );
  const avgdl = Number(corpus.rows[0]?.avgdl ?? 1);
  listSize = Math.max(1, Math.floor(listSize));
  // Grouping a batch's postings by term (~85 per chunk) needs more than the default 4 MB, or the hash aggregate
  // spills to temporary files: a third of this statement's CPU in embedded PGlite (issue 29). For this transaction only.
  await tx.exec(`SET LOCAL work_mem = '64MB'`);
  // One row per term of the batch: its df increment and its new postings above the term's floor
  // (all of them for a new term); a list that gains nothing keeps its stored value (no rewrite).
  const grown = await tx.query<{ term: string }>(
    `WITH up AS (
       INSERT INTO chunk_term_stats AS s (tenant_id, term, df, top_seqs, top_impacts)
       SELECT $1, g.term, g.n,
              CASE WHEN cur.top_floor > 0 THEN ARRAY(SELECT x FROM unnest(g.seqs, g.imps) u(x, i) WHERE i > cur.top_floor) ELSE g.seqs END,
              CASE WHEN cur.top_floor > 0 THEN ARRAY(SELECT i FROM unnest(g.imps) i WHERE i > cur.top_floor) ELSE g.imps END
       FROM (SELECT u.term, count(*) AS n, array_agg(c.seq) AS seqs, array_agg(atrium_bm25_impact(u.tf, c.length, $3::float8)) AS imps
             FROM chunks c, unnest(c.terms, c.tfs) u(term, tf)
             WHERE c.tenant_id = $1 AND c.document_id = ANY($2::text[]) GROUP BY u.term) g
       LEFT JOIN chunk_term_stats cur ON cur.tenant_id = $1 AND cur.term = g.term
       ORDER BY g.term
       ON CONFLICT (tenant_id, term) DO UPDATE SET
         df = s.df + excluded.df,
         top_seqs = CASE WHEN cardinality(excluded.top_seqs) = 0 THEN s.top_seqs ELSE s.top_seqs || excluded.top_seqs END,
         top_impacts = CASE WHEN cardinality(excluded.top_seqs) = 0 THEN s.top_impacts ELSE s.top_impacts || excluded.top_impacts END
       RETURNING s.term, cardinality(s.top_seqs) AS n
     )
     SELECT term FROM up WHERE n > ${2 * listSize}`,
    [tenantId, documentIds, avgdl],
  );
  if (grown.rows.length) await trimLists(tx, tenantId, grown.rows.map((r) => r.term), listSize);
}

/** Cuts these terms' lists to their best TOP_LIST_SIZE postings, raising the floor to the best cut. */
async function trimLists(tx: Queryable, tenantId: string, terms: readonly string[], listSize: number): Promise<void> {
  await tx.query(
    `UPDATE chunk_term_stats s SET top_seqs = l.seqs, top_impacts = l.imps, top_floor = greatest(s.top_floor, l.cut)
     FROM (
       SELECT t.term, k.seqs, k.imps, k.cut FROM chunk_term_stats t CROSS JOIN LATERAL (
         SELECT array_agg(x ORDER BY rn) FILTER (WHERE rn <= ${listSize}) AS seqs,
                array_agg(i ORDER BY rn) FILTER (WHERE rn <= ${listSize}) AS imps,
                coalesce(max(i) FILTER (WHERE rn > ${listSize}), 0) AS cut
         FROM (SELECT x, i, row_number() OVER (ORDER BY i DESC, x) AS rn FROM unnest(t.top_seqs, t.top_impacts) u(x, i)) r
       ) k
       WHERE t.tenant_id = $1 AND t.term = ANY($2::text[])
     ) l
     WHERE s.tenant_id = $1 AND s.term = l.term`,
    [tenantId, terms],
  );
}

/** Removes the chunks of these documents from the statistics and impact lists (call before deleting them). */
export async function removeTermStats(tx: Queryable, tenantId: string, documentIds: readonly string[]): Promise<void> {
  const dead = await tx.query<{ seqs: string[] }>(
    `SELECT coalesce(array_agg(seq), '{}') AS seqs FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])`,
    [tenantId, documentIds],
  );
  const seqs = (dead.rows[0]?.seqs ?? []).map(String);
  if (seqs.length === 0) return;
  // The dead seqs go in as a constant array, so `<> ALL` is a hash probe per list entry.
  await tx.query(
    `WITH t AS (
       SELECT u.term, count(*) AS n FROM chunks c, unnest(c.terms) u(term)
       WHERE c.tenant_id = $1 AND c.document_id = ANY($2::text[]) GROUP BY u.term
     )
     UPDATE chunk_term_stats s SET df = s.df - l.n,
       top_seqs = CASE WHEN cardinality(l.seqs) < cardinality(s.top_seqs) THEN l.seqs ELSE s.top_seqs END,
       top_impacts = CASE WHEN cardinality(l.seqs) < cardinality(s.top_seqs) THEN l.imps ELSE s.top_impacts END
     FROM (
       SELECT t.term, t.n, k.seqs, k.imps FROM t JOIN chunk_term_stats s2 ON s2.tenant_id = $1 AND s2.term = t.term
       CROSS JOIN LATERAL (
         SELECT coalesce(array_agg(u.x ORDER BY u.o), '{}') AS seqs, coalesce(array_agg(u.i ORDER BY u.o), '{}') AS imps
         FROM unnest(s2.top_seqs, s2.top_impacts) WITH ORDINALITY u(x, i, o) WHERE u.x <> ALL($3::bigint[])
       ) k
     ) l
     WHERE s.tenant_id = $1 AND s.term = l.term`,
    [tenantId, documentIds, seqs],
  );
  await tx.query(
    `DELETE FROM chunk_term_stats WHERE tenant_id = $1 AND df <= 0
       AND term IN (SELECT u.term FROM chunks c, unnest(c.terms) u(term) WHERE c.tenant_id = $1 AND c.document_id = ANY($2::text[]))`,
    [tenantId, documentIds],
  );
  await tx.query(
    `UPDATE chunk_corpus_stats s SET chunk_count = s.chunk_count - a.n, total_length = s.total_length - a.len
     FROM (SELECT count(*) AS n, coalesce(sum(length), 0) AS len FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])) a
     WHERE s.tenant_id = $1`,
    [tenantId, documentIds],
  );
}
