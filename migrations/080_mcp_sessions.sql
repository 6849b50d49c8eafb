-- MCP Streamable HTTP sessions of the 2025 protocol revisions (issue 25): stored here rather than in one process, so any
-- API process answers a session's requests (no sticky routing). A row is the session's id, the credential that opened
-- it (only it may use the session) and its last use; the server state itself is rebuilt per request. 2026-07-28
-- requests carry everything they need and have no session.
CREATE TABLE mcp_sessions (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  owner_key text NOT NULL,
  protocol_version text,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX mcp_sessions_owner_idx ON mcp_sessions (owner_key, last_seen_at);
CREATE INDEX mcp_sessions_last_seen_idx ON mcp_sessions (last_seen_at);
