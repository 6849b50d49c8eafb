-- OAuth 2.1 authorization server for the MCP endpoint (docs/mcp.md "Sign in from Claude/ChatGPT"): clients registered
-- dynamically (RFC 7591), outstanding authorization requests, one-time codes, grants (one per person and client
-- consent) and their access / refresh tokens. Every secret (client secret, code, token, browser binding) is stored
-- only as its SHA-256.

CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  -- A registration happens before anyone signs in, so a client belongs to no tenant; grants do.
  client_name text NOT NULL,
  client_uri text,
  redirect_uris jsonb NOT NULL,
  token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  client_secret_hash text,
  software_id text,
  software_version text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_requests (
  -- Random, shown in the consent page's URLs; the browser binding cookie (hashed here) is what authorizes it.
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  state text,
  scope text NOT NULL,
  resource text NOT NULL,
  code_challenge text NOT NULL,
  browser_binding text NOT NULL,
  -- Set when the person pasted an API key instead of signing in through SSO.
  tenant_id text REFERENCES tenants(id) ON DELETE CASCADE,
  api_key_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  decided_at timestamptz
);

CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  -- Exactly one subject: an SSO user, or the API key pasted on the consent page.
  user_id text REFERENCES users(id) ON DELETE CASCADE,
  api_key_id text REFERENCES api_keys(id) ON DELETE CASCADE,
  email text,
  -- The permissions consented to; each use grants their intersection with what the subject holds then.
  permissions text[] NOT NULL,
  scope text NOT NULL,
  resource text NOT NULL,
  redirect_uri text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_by text,
  revoke_reason text,
  CHECK ((user_id IS NULL) <> (api_key_id IS NULL))
);
CREATE INDEX oauth_grants_tenant_idx ON oauth_grants (tenant_id, created_at);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE oauth_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- A refresh token is spent by its one use (rotation); presenting it again revokes the grant.
  used_at timestamptz
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id);
