-- Single sign-on: per-tenant provider configuration, JIT-provisioned users, browser sessions,
-- outstanding sign-in requests (SAML InResponseTo / OIDC state) and consumed assertion ids (replay).

CREATE TABLE sso_configs (
  tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  -- The one active provider: saving a SAML or OIDC configuration makes it active.
  active_provider text CHECK (active_provider IN ('saml', 'oidc')),
  saml jsonb,
  oidc jsonb,
  -- The OIDC client secret, sealed with the service's SecretBox (AES-256-GCM); never returned.
  oidc_client_secret_enc text,
  group_mapping jsonb NOT NULL DEFAULT '{}'::jsonb,
  default_role text NOT NULL DEFAULT 'viewer' CHECK (default_role IN ('admin', 'member', 'viewer')),
  debug_mode boolean NOT NULL DEFAULT false,
  session_ttl_seconds integer,
  last_login_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email text NOT NULL,
  name text,
  role text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
  groups jsonb NOT NULL DEFAULT '[]'::jsonb,
  provider_type text,
  external_id text,
  disabled_at timestamptz,
  last_login_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, email)
);

CREATE TABLE auth_sessions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- SHA-256 of the cookie token; the token itself is never stored.
  token_hash text NOT NULL UNIQUE,
  provider_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (tenant_id, user_id);

CREATE TABLE sso_requests (
  -- SAML AuthnRequest ID, or the SHA-256 of the OIDC state.
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  provider_type text NOT NULL,
  -- OIDC: sealed {nonce, code_verifier}; SAML: null.
  secret_enc text,
  -- SHA-256 of the flow cookie that binds the request to the browser that started it (OIDC).
  browser_binding text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX sso_requests_expiry_idx ON sso_requests (expires_at);

CREATE TABLE sso_consumed_assertions (
  tenant_id text NOT NULL,
  assertion_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, assertion_id)
);
