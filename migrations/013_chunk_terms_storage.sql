-- Keep the BM25 lookup arrays uncompressed (content and fts compress first), so array_position does
-- not decompress them once per query term: ~30% less CPU per lexical query (measured on cranfield).
ALTER TABLE chunks ALTER COLUMN terms SET STORAGE EXTERNAL;
ALTER TABLE chunks ALTER COLUMN tfs SET STORAGE EXTERNAL;
