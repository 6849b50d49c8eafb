-- Issue 29: ANALYZE (PGlite runs it every 5,000 chunk writes, src/documents/maintenance.ts; autovacuum on
-- PostgreSQL) built statistics nothing plans with: most-common values and histograms of ~1 KB passage
-- texts, of the BM25 term/tf arrays and impact lists (read by position, never filtered on), and of the
-- vectors (ordered by distance through their index). Without them ANALYZE of chunks costs ~3× less CPU
-- (0.26 → 0.08 s at 6,000 chunks); the columns queries filter on (tenant, document, model, fts, dates,
-- metadata) keep theirs.
ALTER TABLE chunks
  ALTER COLUMN content SET STATISTICS 0,
  ALTER COLUMN heading SET STATISTICS 0,
  ALTER COLUMN terms SET STATISTICS 0,
  ALTER COLUMN tfs SET STATISTICS 0,
  ALTER COLUMN embedding SET STATISTICS 0;
ALTER TABLE documents ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE chunk_term_stats
  ALTER COLUMN top_seqs SET STATISTICS 0,
  ALTER COLUMN top_impacts SET STATISTICS 0;
-- The pgvector column exists only where the extension is (migration 011).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'chunks' AND column_name = 'embedding_vec' AND table_schema = current_schema()) THEN
    ALTER TABLE chunks ALTER COLUMN embedding_vec SET STATISTICS 0;
  END IF;
END $$;
