-- GET /v1/connectors/{type}/oauth-url with no connector: the OAuth callback creates the connector once the code
-- exchange succeeds. The state then names no connector yet; it keeps the display name asked for and who asked.
ALTER TABLE connector_oauth_states ALTER COLUMN connector_id DROP NOT NULL;
ALTER TABLE connector_oauth_states ADD COLUMN display_name text;
ALTER TABLE connector_oauth_states ADD COLUMN actor_id text;
ALTER TABLE connector_oauth_states ADD COLUMN user_id text;
