-- Issue 29: a cheaper and smaller chunk row (docs/benchmarks.md, "Ingest without the vectors").
--
-- 1. No tsvector per chunk. BM25 reads the aligned `terms`/`tfs` arrays (migration 013), which hold the same
--    lexemes as `fts` did (its positions and weights were read by nothing), so the full-text index moves to
--    `terms` (GIN over the array: `terms && $lexemes` is what `fts @@ 'a' | 'b'` was) and `fts` goes: one
--    tokenisation per chunk instead of a tsvector plus the arrays, ~1.2 KB less per chunk.
-- 2. `terms`/`tfs` are kept in the row (STORAGE MAIN: compressed only when a row is too large even after its
--    content went out of line) instead of in TOAST (EXTERNAL, migration 013): no TOAST tuple and TOAST index
--    entry per array on write, no TOAST fetch per candidate at query time, and 1-2 KB less TOAST per chunk.
-- 3. `content` may be NULL: the chunk's text is then its document's `content`, verbatim (a document that is one
--    chunk keeps its text once, in documents). Readers take `coalesce(c.content, d.content)`.
-- Rows already stored stay valid as they are (their content is kept; their `fts` space is reused as rows are
-- rewritten); new and re-chunked documents get the new layout.
CREATE INDEX chunks_terms_idx ON chunks USING gin (terms);
DROP INDEX chunks_fts_idx;
ALTER TABLE chunks DROP COLUMN fts;
ALTER TABLE chunks ALTER COLUMN terms SET STORAGE MAIN, ALTER COLUMN tfs SET STORAGE MAIN;
ALTER TABLE chunks ALTER COLUMN content DROP NOT NULL;
