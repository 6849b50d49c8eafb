import type { DatabaseExecutor } from '../platform/db/index.ts';

/**
 * Embedded PGlite runs PostgreSQL in single-user mode: no autovacuum and no autoanalyze. Every chunk
 * write, vector write and impact-list rewrite leaves dead tuples (and dead TOAST of the lists), and
 * the planner never learns the tables grew. So the documents module counts the chunk rows it writes
 * per database and does what autovacuum would do on PostgreSQL, where this is a no-op:
 * - every `VACUUM_AFTER_CHUNK_WRITES`, vacuums and analyzes the term statistics, which every batch
 *   rewrites (a row per term it touches, and the TOASTed impact lists that gained postings) and whose
 *   live size follows the vocabulary, not the corpus. Each batch's rewrites leave a dead copy of the
 *   lists they grew until the next pass, so the cadence sets the table's size: every 5,000 chunk
 *   writes it held 3.25 KB per document at 20k documents (2.5 of them dead TOAST) and 1.57 KB at 100k
 *   (157 MB for 28 MB of live lists); every 1,000 it holds 1.36 KB at 20k, and ingest took no more CPU
 *   (454 vs 544 docs per CPU-second, within this machine's noise: reused pages instead of new ones);
 * - chunks and documents, which ingestion mostly appends to, once the writes since their last pass
 *   reach `TABLE_SCALE_FACTOR` of their rows (autovacuum's scale factor): passes over the whole tables
 *   then cost a constant amount per write, instead of growing with the corpus (issue 29: at 20k
 *   documents the fixed cadence cost 0.14 ms per document, and more at each step).
 */
export const VACUUM_AFTER_CHUNK_WRITES = 1000;
export const TABLE_SCALE_FACTOR = 0.2;
const STATS_SQL = 'VACUUM (ANALYZE) chunk_term_stats, chunk_corpus_stats';
const TABLES_SQL = 'VACUUM (ANALYZE) chunks, documents';

const pending = new WeakMap<DatabaseExecutor, { stats: number; tables: number }>();

/**
 * Records `n` chunk rows written (inserted, updated or deleted); vacuums what is due. Returns what it vacuumed:
 * false, 'stats' (the term statistics) or 'all' (those, chunks and documents).
 */
export async function noteChunkWrites(db: DatabaseExecutor, n: number, threshold = VACUUM_AFTER_CHUNK_WRITES): Promise<false | 'stats' | 'all'> {
  if (db.kind !== 'pglite' || n <= 0) return false;
  const p = pending.get(db) ?? { stats: 0, tables: 0 };
  p.stats += n;
  p.tables += n;
  pending.set(db, p);
  if (p.stats < threshold) return false;
  p.stats = 0;
  await db.exec(STATS_SQL);
  // reltuples is -1 before the first pass: the tables are then due at the threshold.
  const r = await db.query<{ n: number }>(`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'chunks'::regclass`);
  if (p.tables < Math.max(threshold, TABLE_SCALE_FACTOR * Number(r.rows[0]?.n ?? 0))) return 'stats';
  p.tables = 0;
  await db.exec(TABLES_SQL);
  return 'all';
}
