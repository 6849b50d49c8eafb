-- Tenants, API keys, audit events, jobs, secrets: the foundation every capability builds on.
-- Every tenant-owned row carries tenant_id; no query joins across tenants.

CREATE TABLE tenants (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO tenants (id, name) VALUES ('default', 'Default tenant');

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  permissions text[] NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id, created_at);

CREATE TABLE audit_events (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  tenant_id text NOT NULL,
  action text NOT NULL,
  actor_id text,
  user_id text,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_events_tenant_action_idx ON audit_events (tenant_id, action text_pattern_ops, seq);
CREATE INDEX audit_events_tenant_seq_idx ON audit_events (tenant_id, seq);

-- Durable jobs leased with FOR UPDATE SKIP LOCKED (sync runs, translation training, embedding).
CREATE TABLE jobs (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  priority integer NOT NULL DEFAULT 0,
  run_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5,
  lease_owner text,
  lease_expires_at timestamptz,
  progress real NOT NULL DEFAULT 0,
  checkpoint jsonb,
  result jsonb,
  last_error text,
  dedupe_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX jobs_ready_idx ON jobs (status, run_at, priority);
CREATE INDEX jobs_tenant_kind_idx ON jobs (tenant_id, kind, created_at);
-- At most one unfinished job per dedupe key (e.g. one running sync per connector).
CREATE UNIQUE INDEX jobs_dedupe_idx ON jobs (dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');

-- Connectors: the foundation owns the table so the list endpoint exists; the connectors module extends it.
CREATE TABLE connectors (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connector_type text NOT NULL,
  display_name text NOT NULL,
  status text NOT NULL DEFAULT 'connecting',
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  credentials_enc text,
  last_sync_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connectors_tenant_idx ON connectors (tenant_id, created_at);
