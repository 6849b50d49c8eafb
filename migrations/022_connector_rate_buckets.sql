-- Vendor rate limits shared by every process (src/sync/rate-buckets.ts): one row per connector holding its
-- token buckets (second, minute, hour windows; NULL = no limit in that window) and the instant until which a
-- vendor 429's Retry-After blocks every call. Times are ms since the epoch (float8), so the SQL matches the
-- pure reference in src/sync/limits.ts exactly. A token is taken in one INSERT … ON CONFLICT DO UPDATE.
CREATE TABLE connector_rate_buckets (
  connector_id text PRIMARY KEY REFERENCES connectors(id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  cap_s double precision,
  cap_m double precision,
  cap_h double precision,
  tok_s double precision,
  tok_m double precision,
  tok_h double precision,
  at_ms double precision NOT NULL,                     -- when the tokens were last refilled
  blocked_until_ms double precision NOT NULL DEFAULT 0, -- a vendor 429: no call before this instant
  wait_ms double precision NOT NULL DEFAULT 0           -- the last take's answer: 0 = granted, else ms to wait
);
