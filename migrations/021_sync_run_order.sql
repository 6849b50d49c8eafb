-- Sync runs in creation order even when several start within one clock tick.
ALTER TABLE connector_sync_runs ADD COLUMN seq bigserial;
CREATE INDEX connector_sync_runs_seq_idx ON connector_sync_runs (tenant_id, connector_id, seq DESC);
