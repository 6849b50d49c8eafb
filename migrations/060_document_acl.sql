-- Permission-aware retrieval (docs/permissions.md): every document's ACL as the flat list of principals that may
-- read it, so the SQL that selects search candidates filters with one indexed overlap test
-- (`acl_principals && $viewer_principals`) instead of interpreting jsonb per row.
--   no ACL (NULL)             → '*'           (everyone in the tenant, service keys included)
--   {"public": true}          → 'public'      (everyone in the tenant)
--   {"domain": ["acme.com"]}  → 'domain:acme.com'
--   {"users": ["a@acme.com"]} → 'user:a@acme.com' (emails and `<kind>:<vendor user id>`, lower-cased)
--   {"groups": ["slack:C1"]}  → 'group:slack:C1'
-- An ACL that grants nobody (`{}`, or a shape this function does not know) yields no principal: only an
-- explicit admin bypass reads it. The older forms of the first four connector kinds ({visibility, …}) are
-- read too, so rows stored before their maps moved to the shared shape stay readable by the right people
-- until the next sync rewrites them (Linear's team keys cannot be mapped to team ids here: nobody until then).
CREATE FUNCTION atrium_acl_principals(acl jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN acl IS NULL OR jsonb_typeof(acl) = 'null' THEN ARRAY['*']::text[]
    WHEN jsonb_typeof(acl) <> 'object' THEN ARRAY[]::text[]
    WHEN acl ? 'visibility' THEN CASE
      WHEN acl->>'visibility' IN ('public', 'workspace') THEN ARRAY['public']::text[]
      WHEN acl->>'visibility' = 'private' AND jsonb_typeof(acl->'channel') = 'string' THEN ARRAY['group:slack:' || (acl->>'channel')]
      WHEN acl->>'visibility' = 'private' AND jsonb_typeof(acl->'repository') = 'string' THEN ARRAY['group:github:' || (acl->>'repository')]
      ELSE ARRAY[]::text[]
    END
    ELSE ARRAY(
      SELECT DISTINCT p FROM (
        SELECT 'public' AS p WHERE acl->'public' = 'true'::jsonb
        UNION ALL
        SELECT 'domain:' || lower(x) FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(acl->'domain') = 'array' THEN acl->'domain' ELSE '[]'::jsonb END) x
        UNION ALL
        SELECT 'user:' || lower(x) FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(acl->'users') = 'array' THEN acl->'users' ELSE '[]'::jsonb END) x
        UNION ALL
        SELECT 'group:' || x FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(acl->'groups') = 'array' THEN acl->'groups' ELSE '[]'::jsonb END) x
      ) s ORDER BY p
    )
  END
$$;

-- Generated: every write path (connector sync, webhooks, push) keeps it in step with `acl`, and adding the
-- column computes it for the rows already stored.
ALTER TABLE documents ADD COLUMN acl_principals text[] GENERATED ALWAYS AS (atrium_acl_principals(acl)) STORED;
CREATE INDEX documents_acl_principals_idx ON documents USING gin (acl_principals);
-- Whether a tenant has any document that not everyone may read: retrieval skips the ACL filter altogether when
-- it has none (documents/acl.ts, restrictedDocumentsExist), so a tenant without ACLs pays one index probe.
CREATE INDEX documents_restricted_idx ON documents (tenant_id) WHERE NOT (acl_principals && ARRAY['*', 'public']::text[]);
