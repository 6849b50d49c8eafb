-- vec2vec: trained embedding-space translations, one row per direction (pairs are directional).
-- A row is written only when training has finished, in one transaction with its reverse direction,
-- so the registry never holds a half-written translation. Built-in (shipped) translations live in
-- translations/*.bin and are not rows: a tenant's own row for the same pair takes precedence.
CREATE TABLE translations (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  source_model text NOT NULL,
  target_model text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('linear', 'neural')),
  source_dim integer NOT NULL,
  target_dim integer NOT NULL,
  confidence double precision NOT NULL,
  sample_count integer NOT NULL,
  metrics jsonb NOT NULL DEFAULT '{}'::jsonb,
  params bytea NOT NULL,
  job_id text,
  trained_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, source_model, target_model)
);
