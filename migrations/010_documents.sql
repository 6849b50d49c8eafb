-- Documents and their chunks: the hybrid index (full-text + vectors). Owned by src/documents.
-- Every row carries tenant_id and every query filters by it.

CREATE TABLE documents (
  id text PRIMARY KEY,                       -- server-assigned doc_…, unique across sources
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  source_node text NOT NULL,                 -- the connector id the document came from
  external_id text NOT NULL,                 -- the source's own id
  title text NOT NULL DEFAULT '',
  content text NOT NULL DEFAULT '',
  url text,
  author text,
  document_type text NOT NULL DEFAULT 'page',
  created_at timestamptz,
  updated_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  acl jsonb,
  content_hash text NOT NULL,                -- sha256 of title + content: unchanged hash = no re-chunking, no re-embedding
  fields_hash text NOT NULL,                 -- sha256 of the other fields: unchanged = nothing written at all
  embedding_model text,                      -- the model of its chunk vectors; null until embedded
  ingested_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, source_node, external_id)
);
CREATE INDEX documents_tenant_source_idx ON documents (tenant_id, source_node);
CREATE INDEX documents_tenant_ingested_idx ON documents (tenant_id, ingested_at DESC);
CREATE INDEX documents_tenant_updated_idx ON documents (tenant_id, updated_at DESC);

CREATE TABLE chunks (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  document_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  content text NOT NULL,
  heading text,                              -- the section path the chunk sits under
  fts tsvector NOT NULL,                     -- title + heading + content, language per tenant config
  length integer NOT NULL,                   -- lexeme count, the BM25 document length
  embedding real[],                          -- portable vector storage (used when pgvector is absent)
  embedding_model text,                      -- null until embedded
  UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_fts_idx ON chunks USING gin (fts);
CREATE INDEX chunks_tenant_doc_idx ON chunks (tenant_id, document_id);
CREATE INDEX chunks_pending_idx ON chunks (tenant_id, document_id) WHERE embedding_model IS NULL;

-- BM25 corpus statistics kept in SQL, maintained by the same transactions that write chunks.
CREATE TABLE chunk_term_stats (
  tenant_id text NOT NULL,
  term text NOT NULL,
  df integer NOT NULL,                       -- number of chunks containing the term
  PRIMARY KEY (tenant_id, term)
);
CREATE TABLE chunk_corpus_stats (
  tenant_id text PRIMARY KEY,
  chunk_count bigint NOT NULL DEFAULT 0,
  total_length bigint NOT NULL DEFAULT 0
);
