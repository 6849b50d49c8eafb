-- Federated query: tombstones (forget requests), user activity (entropy), remote Atrium nodes,
-- and result-cache generations. Owned by src/federation. Every row carries tenant_id.

-- A forget request: one document, one source item (connector + external id), or a whole connector.
-- Matching documents are still returned, flagged suppressed_by_tombstone and ranked below live ones.
CREATE TABLE federation_tombstones (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  document_id text,
  connector_id text,
  external_id text,
  reason text,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  lifted_at timestamptz,
  lifted_by text,
  CHECK (document_id IS NOT NULL OR connector_id IS NOT NULL)
);
CREATE INDEX federation_tombstones_active_idx ON federation_tombstones (tenant_id, created_at) WHERE lifted_at IS NULL;

-- One row per federated query of a user: the input of the user entropy (a sliding window).
CREATE TABLE federation_activity (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  query_hash text NOT NULL,
  terms text[] NOT NULL
);
CREATE INDEX federation_activity_user_idx ON federation_activity (tenant_id, user_id, occurred_at DESC);

-- Other Atrium instances this tenant federates with; the API key is sealed with the secret box.
CREATE TABLE federation_nodes (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  api_key_enc text NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);

-- The result cache is keyed by this generation: any change to a tenant's documents bumps it, so every
-- API process (embedded or production) stops serving results computed before the change.
CREATE TABLE federation_generations (
  tenant_id text PRIMARY KEY,
  generation bigint NOT NULL DEFAULT 0,
  changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION federation_bump_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO federation_generations (tenant_id, generation, changed_at)
      SELECT DISTINCT tenant_id, 1, now() FROM old_rows
      ON CONFLICT (tenant_id) DO UPDATE SET generation = federation_generations.generation + 1, changed_at = now();
  ELSE
    INSERT INTO federation_generations (tenant_id, generation, changed_at)
      SELECT DISTINCT tenant_id, 1, now() FROM new_rows
      ON CONFLICT (tenant_id) DO UPDATE SET generation = federation_generations.generation + 1, changed_at = now();
  END IF;
  RETURN NULL;
END $$;

-- Statement-level with transition tables: one bump per statement and tenant, not per row.
CREATE TRIGGER federation_documents_inserted AFTER INSERT ON documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION federation_bump_generation();
CREATE TRIGGER federation_documents_updated AFTER UPDATE ON documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION federation_bump_generation();
CREATE TRIGGER federation_documents_deleted AFTER DELETE ON documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION federation_bump_generation();
