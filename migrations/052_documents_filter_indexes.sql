-- Indexes for the search filters that had none (src/documents/search.ts, filterSql): the effective time
-- `coalesce(updated_at, created_at, ingested_at)` that `after` / `before` (the federated query's
-- `date_range`) compare, and `document_type`. Without them a filtered query that has to score every
-- lexical match (too few impact-list candidates pass the filter) read the whole documents table
-- (~42 ms of a ~110 ms query at 100k documents, docs/retrieval.md).
CREATE INDEX documents_tenant_effective_time_idx ON documents (tenant_id, (coalesce(updated_at, created_at, ingested_at)));
CREATE INDEX documents_tenant_type_idx ON documents (tenant_id, document_type);
