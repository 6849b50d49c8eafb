-- AI-usage detection (docs/ai-usage.md): the tenant's allow-list and thresholds, what each llm_providers connector
-- has shown so far, and the findings, each recorded once.

-- One policy per tenant (absent = defaults: empty allow-lists, spike_factor 3, min_baseline_days 7).
CREATE TABLE ai_usage_policy (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  policy jsonb NOT NULL,
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A connector's baseline: set by its first completed sync; values it had stored by then raise no "new" finding.
CREATE TABLE ai_usage_baselines (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connector_id text NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
  baselined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, connector_id)
);

-- Every user, API key and model a connector has shown, with the first day it was used; `baseline` = present by the
-- end of the connector's first completed sync.
CREATE TABLE ai_usage_seen (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connector_id text NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
  provider text NOT NULL,
  dimension text NOT NULL CHECK (dimension IN ('user', 'api_key', 'model')),
  value text NOT NULL,
  first_day date NOT NULL,
  baseline boolean NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, connector_id, dimension, value)
);

-- Findings, each recorded once per (tenant, rule, provider, subject); kept when the connector is deleted (they are
-- what security reviewed), like their audit events.
CREATE TABLE ai_usage_findings (
  finding_id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  rule text NOT NULL,
  provider text NOT NULL,
  subject text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  first_seen date,
  detected_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, rule, provider, subject)
);
CREATE INDEX ai_usage_findings_detected_idx ON ai_usage_findings (tenant_id, detected_at DESC);
