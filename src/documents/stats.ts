import type { Queryable } from '../platform/db/index.ts';

/**
 * BM25 corpus statistics (chunk count, total length, document frequency per lexeme) are kept in SQL
 * and changed by the same transaction that writes or deletes chunks. Writers of one tenant take the
 * tenant's stats row lock first, so concurrent batches never deadlock on term rows.
 */
export async function lockTenantStats(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query('INSERT INTO chunk_corpus_stats (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
  await tx.query('SELECT 1 FROM chunk_corpus_stats WHERE tenant_id = $1 FOR UPDATE', [tenantId]);
}

/** Adds the chunks of these documents to the statistics (call after inserting them). */
export async function addTermStats(tx: Queryable, tenantId: string, documentIds: readonly string[]): Promise<void> {
  await tx.query(
    `INSERT INTO chunk_term_stats (tenant_id, term, df)
     SELECT $1, u.term, count(*) FROM chunks c, unnest(c.terms) u(term)
     WHERE c.tenant_id = $1 AND c.document_id = ANY($2::text[])
     GROUP BY u.term ORDER BY u.term
     ON CONFLICT (tenant_id, term) DO UPDATE SET df = chunk_term_stats.df + excluded.df`,
    [tenantId, documentIds],
  );
  await tx.query(
    `UPDATE chunk_corpus_stats s SET chunk_count = s.chunk_count + a.n, total_length = s.total_length + a.len
     FROM (SELECT count(*) AS n, coalesce(sum(length), 0) AS len FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])) a
     WHERE s.tenant_id = $1`,
    [tenantId, documentIds],
  );
}

/** Removes the chunks of these documents from the statistics (call before deleting them). */
export async function removeTermStats(tx: Queryable, tenantId: string, documentIds: readonly string[]): Promise<void> {
  await tx.query(
    `WITH t AS (
       SELECT u.term, count(*) AS n FROM chunks c, unnest(c.terms) u(term)
       WHERE c.tenant_id = $1 AND c.document_id = ANY($2::text[]) GROUP BY u.term
     )
     UPDATE chunk_term_stats s SET df = s.df - t.n FROM t WHERE s.tenant_id = $1 AND s.term = t.term`,
    [tenantId, documentIds],
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
