-- atrium:requires vector
-- With pgvector, chunk vectors live in one untyped `vector` column (models differ in dimensions);
-- per-model partial HNSW indexes on an expression cast are created by the app when a model first
-- appears (src/documents/vector-index.ts). Vectors written before pgvector was enabled move here.
ALTER TABLE chunks ADD COLUMN embedding_vec vector;
UPDATE chunks SET embedding_vec = embedding::vector, embedding = NULL WHERE embedding IS NOT NULL;
