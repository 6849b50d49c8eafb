-- Connectors and sync (src/connectors, src/sync): state, cursors, schedules, sync runs, OAuth states.
-- Every row carries tenant_id and every query filters by it.

ALTER TABLE connectors ADD COLUMN status_reason text;              -- why the connector is in its state (actionable)
ALTER TABLE connectors ADD COLUMN paused_from text;                -- the state a pause interrupted
ALTER TABLE connectors ADD COLUMN sync_cursor jsonb;               -- the kind's typed incremental cursor
ALTER TABLE connectors ADD COLUMN oauth_tokens_enc text;           -- AES-256-GCM sealed OAuth tokens
ALTER TABLE connectors ADD COLUMN token_expires_at timestamptz;
ALTER TABLE connectors ADD COLUMN webhook_secret_enc text;         -- AES-256-GCM sealed webhook secret
ALTER TABLE connectors ADD COLUMN next_incremental_at timestamptz;
ALTER TABLE connectors ADD COLUMN next_full_at timestamptz;
ALTER TABLE connectors ADD COLUMN rate_limited_until timestamptz;
CREATE INDEX connectors_due_idx ON connectors (status, next_incremental_at);

CREATE TABLE connector_sync_runs (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  connector_id text NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
  job_id text,
  sync_type text NOT NULL CHECK (sync_type IN ('incremental', 'full')),
  trigger text NOT NULL DEFAULT 'manual',
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  added integer NOT NULL DEFAULT 0,
  updated integer NOT NULL DEFAULT 0,
  unchanged integer NOT NULL DEFAULT 0,
  deleted integer NOT NULL DEFAULT 0,
  batches integer NOT NULL DEFAULT 0,
  rate_limited_waits integer NOT NULL DEFAULT 0,
  error text
);
CREATE INDEX connector_sync_runs_connector_idx ON connector_sync_runs (tenant_id, connector_id, started_at DESC);

-- External ids seen by a full sync so far; what a full sync did not see is removed at its end.
CREATE TABLE connector_sync_seen (
  run_id text NOT NULL REFERENCES connector_sync_runs(id) ON DELETE CASCADE,
  external_id text NOT NULL,
  PRIMARY KEY (run_id, external_id)
);

-- OAuth 2.0 authorization states: bound to tenant and connector, single use, expiring. Only a hash is stored.
CREATE TABLE connector_oauth_states (
  state_hash text PRIMARY KEY,
  tenant_id text NOT NULL,
  connector_id text NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
  connector_type text NOT NULL,
  code_verifier_enc text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
