import type { DatabaseExecutor } from '../platform/db/index.ts';

/**
 * Embedded PGlite runs PostgreSQL in single-user mode: no autovacuum and no autoanalyze. Every chunk
 * write, vector write and impact-list rewrite leaves dead tuples (and dead TOAST of the lists), and
 * the planner never learns the tables grew. So the documents module counts the chunk rows it writes
 * per database and, past `VACUUM_AFTER_CHUNK_WRITES`, vacuums and analyzes the tables it churns —
 * what autovacuum would do on PostgreSQL, where this is a no-op.
 */
export const VACUUM_AFTER_CHUNK_WRITES = 5000;
const VACUUM_SQL = 'VACUUM (ANALYZE) chunk_term_stats, chunk_corpus_stats, chunks, documents';

const pending = new WeakMap<DatabaseExecutor, number>();

/** Records `n` chunk rows written (inserted, updated or deleted); vacuums when enough accumulated. Returns whether it vacuumed. */
export async function noteChunkWrites(db: DatabaseExecutor, n: number, threshold = VACUUM_AFTER_CHUNK_WRITES): Promise<boolean> {
  if (db.kind !== 'pglite' || n <= 0) return false;
  const total = (pending.get(db) ?? 0) + n;
  if (total < threshold) {
    pending.set(db, total);
    return false;
  }
  pending.set(db, 0);
  await db.exec(VACUUM_SQL);
  return true;
}
