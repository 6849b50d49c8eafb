-- The AI-usage view (docs/ai-usage.md): usage and cost buckets of the llm_providers connectors, stored apart from
-- documents. One row per bucket the provider reports; `record_id` is the connector's stable id for the bucket, so
-- re-reading it (an incremental look-back, a resumed sync) replaces the row instead of counting it twice.
-- Deleting the connector deletes its rows.
CREATE TABLE ai_usage (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connector_id text NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
  -- the connector's connector_type (openai, anthropic, …)
  provider text NOT NULL,
  record_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('usage', 'cost')),
  day date NOT NULL,
  workspace text,
  project text,
  "user" text,
  api_key text,
  model text,
  requests bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cost_usd numeric NOT NULL DEFAULT 0,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, connector_id, record_id)
);
CREATE INDEX ai_usage_day_idx ON ai_usage (tenant_id, day);
CREATE INDEX ai_usage_provider_day_idx ON ai_usage (tenant_id, provider, day);
CREATE INDEX ai_usage_user_idx ON ai_usage (tenant_id, "user", day) WHERE "user" IS NOT NULL;
CREATE INDEX ai_usage_model_idx ON ai_usage (tenant_id, model, day) WHERE model IS NOT NULL;
CREATE INDEX ai_usage_api_key_idx ON ai_usage (tenant_id, api_key, day) WHERE api_key IS NOT NULL;
CREATE INDEX ai_usage_project_idx ON ai_usage (tenant_id, project, day) WHERE project IS NOT NULL;
CREATE INDEX ai_usage_connector_idx ON ai_usage (connector_id);
