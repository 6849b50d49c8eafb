-- BM25 without unnesting tsvectors at query time: each chunk keeps its lexemes (sorted, as
-- tsvector_to_array returns them) and their term frequencies, aligned; the query's scoring is then
-- array_position lookups per query term (see src/documents/search.ts).
ALTER TABLE chunks ADD COLUMN terms text[] NOT NULL DEFAULT '{}';
ALTER TABLE chunks ADD COLUMN tfs smallint[] NOT NULL DEFAULT '{}';
UPDATE chunks SET
  terms = tsvector_to_array(fts),
  tfs = ARRAY(SELECT least(coalesce(array_length(u.positions, 1), 1), 32767)::smallint FROM unnest(fts) u);
