-- Permission-aware retrieval without a document lookup per candidate (docs/permissions.md, issue 24): every chunk
-- carries a copy of its document's `acl_principals` (migration 060), so the search paths that walk chunks in an
-- index's order (impact lists, HNSW) test the reader's view on the chunk itself (`c.acl_principals && $viewer`).
-- The documents' column stays the source of truth; two triggers keep the copy in step on every write path:
--   * a chunk inserted without it takes its document's (documents are written before their chunks);
--   * a document whose ACL changes (upsert with a new ACL but the same content, so its chunks are kept) rewrites
--     its chunks' copy in the same statement's transaction.
-- No index on the chunk column on purpose: the planner must keep walking the chunk index's order and filter on the
-- way (a GIN index here would invite bitmap plans that score every passing chunk).
ALTER TABLE chunks ADD COLUMN acl_principals text[];

UPDATE chunks c SET acl_principals = d.acl_principals
FROM documents d WHERE d.id = c.document_id AND d.tenant_id = c.tenant_id;

CREATE FUNCTION atrium_chunk_acl_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT d.acl_principals INTO NEW.acl_principals FROM documents d WHERE d.id = NEW.document_id AND d.tenant_id = NEW.tenant_id;
  RETURN NEW;
END
$$;
CREATE TRIGGER chunks_acl_fill BEFORE INSERT OR UPDATE OF document_id, acl_principals ON chunks
FOR EACH ROW WHEN (NEW.acl_principals IS NULL) EXECUTE FUNCTION atrium_chunk_acl_fill();

CREATE FUNCTION atrium_document_acl_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chunks SET acl_principals = NEW.acl_principals
  WHERE tenant_id = NEW.tenant_id AND document_id = NEW.id AND acl_principals IS DISTINCT FROM NEW.acl_principals;
  RETURN NULL;
END
$$;
CREATE TRIGGER documents_acl_sync AFTER UPDATE OF acl ON documents
FOR EACH ROW WHEN (OLD.acl_principals IS DISTINCT FROM NEW.acl_principals) EXECUTE FUNCTION atrium_document_acl_sync();

-- A chunk always has its document (ON DELETE CASCADE), so the copy is never missing; NULL would hide the chunk
-- from every filtered view (NULL && x is not true), never show it.
ALTER TABLE chunks ALTER COLUMN acl_principals SET NOT NULL;
