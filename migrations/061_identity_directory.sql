-- The identity directory (docs/permissions.md): who a reader is to each source, so a person's retrieval view holds
-- their vendor user ids and vendor group memberships besides their email, domain and IdP groups (users.groups).

-- A key bound to a person reads what that person may read; NULL = a service key (public documents only, or the
-- person named per request with the act_as permission).
ALTER TABLE api_keys ADD COLUMN identity_email text;

-- Vendor identities seen by connectors: `<connector_type>:<vendor user id>` → email as the vendor reports it, or as
-- an admin mapped it by hand (mapped_email wins and survives syncs). Neither = unresolved (listed for admins).
CREATE TABLE identity_accounts (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  connector_id text NOT NULL,
  display_name text,
  email text,
  mapped_email text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, account_id)
);
CREATE INDEX identity_accounts_email_idx ON identity_accounts (tenant_id, (coalesce(mapped_email, email)));

-- Vendor group memberships: group `<connector_type>:<vendor group id>` → member (an account_id or an email). Each
-- writer (a connector id, or 'manual' for an admin) replaces its own rows of a group as a whole, so a membership
-- removed at the source is gone after the next sync.
CREATE TABLE identity_memberships (
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  group_id text NOT NULL,
  member text NOT NULL,
  source text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, group_id, member, source)
);
CREATE INDEX identity_memberships_member_idx ON identity_memberships (tenant_id, member);
