-- First-run setup (README "First run"): while an instance has no API key, each start of the service issues a one-time
-- code that lets the first visitor create the first admin key in the console. Only its hash is stored; a code
-- expires after an hour or its first use, and a new one replaces any earlier unused one.
CREATE TABLE setup_codes (
  id text PRIMARY KEY,
  code_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
