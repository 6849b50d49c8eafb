import type { Role } from '../access/index.ts';
import { directoryChanged } from '../identity/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { newId } from '../platform/ids.ts';
import type { MappedIdentity } from './attributes.ts';
import type { ProviderType } from './store.ts';

export interface User {
  readonly id: string;
  readonly tenant_id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: Role;
  readonly groups: string[];
  readonly disabled: boolean;
  readonly created: boolean;
}

/**
 * Just-in-time provisioning: creates the user on first sign-in, else refreshes name, groups and role from the
 * IdP (the IdP is the source of truth for group membership). Keyed by (tenant, email).
 */
export async function upsertUser(
  db: Queryable,
  input: { tenantId: string; identity: MappedIdentity; role: Role; provider: ProviderType; externalId: string; now: Date },
): Promise<User> {
  // A sign-in rewrites the person's IdP groups: their cached view (identity/person-cache.ts) must not outlive it.
  directoryChanged(input.tenantId);
  const r = await db.query<Record<string, unknown>>(
    `INSERT INTO users (id, tenant_id, email, name, role, groups, provider_type, external_id, last_login_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)
     ON CONFLICT (tenant_id, email) DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role, groups = EXCLUDED.groups,
       provider_type = EXCLUDED.provider_type, external_id = EXCLUDED.external_id, last_login_at = EXCLUDED.last_login_at,
       updated_at = EXCLUDED.updated_at
     RETURNING id, tenant_id, email, name, role, groups, disabled_at, (xmax = 0) AS created`,
    [
      newId('usr'),
      input.tenantId,
      input.identity.email,
      input.identity.name,
      input.role,
      JSON.stringify(input.identity.groups),
      input.provider,
      input.externalId,
      input.now.toISOString(),
    ],
  );
  directoryChanged(input.tenantId);
  const row = r.rows[0]!;
  return {
    id: String(row.id),
    tenant_id: String(row.tenant_id),
    email: String(row.email),
    name: (row.name as string | null) ?? null,
    role: row.role as Role,
    groups: row.groups as string[],
    disabled: row.disabled_at != null,
    created: Boolean(row.created),
  };
}

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: Role;
  readonly groups: string[];
  readonly provider_type: string | null;
  readonly disabled: boolean;
  readonly last_login_at: string | null;
  readonly created_at: string;
}

const iso = (v: unknown) => (v == null ? null : new Date(v as string | Date).toISOString());

function toView(row: Record<string, unknown>): UserView {
  return {
    id: String(row.id),
    email: String(row.email),
    name: (row.name as string | null) ?? null,
    role: row.role as Role,
    groups: (row.groups as string[]) ?? [],
    provider_type: (row.provider_type as string | null) ?? null,
    disabled: row.disabled_at != null,
    last_login_at: iso(row.last_login_at),
    created_at: iso(row.created_at) ?? '',
  };
}

/** The tenant's signed-in users, most recent sign-in first. */
export async function listUsers(db: Queryable, tenantId: string, limit: number): Promise<UserView[]> {
  const r = await db.query<Record<string, unknown>>(
    'SELECT * FROM users WHERE tenant_id = $1 ORDER BY last_login_at DESC NULLS LAST, email LIMIT $2',
    [tenantId, limit],
  );
  return r.rows.map(toView);
}

/**
 * Disables or re-enables a user. Disabling revokes their sessions at once (an IdP deprovisioning otherwise only
 * takes effect when the session expires) and refuses their next sign-ins. Null when the tenant has no such user.
 */
export async function setUserDisabled(db: Queryable, tenantId: string, userId: string, disabled: boolean, now: Date): Promise<UserView | null> {
  directoryChanged(tenantId);
  const r = await db.query<Record<string, unknown>>(
    `UPDATE users SET disabled_at = CASE WHEN $3 THEN COALESCE(disabled_at, $4) ELSE NULL END, updated_at = $4
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, userId, disabled, now.toISOString()],
  );
  directoryChanged(tenantId);
  const row = r.rows[0];
  if (!row) return null;
  if (disabled) {
    await db.query('UPDATE auth_sessions SET revoked_at = $3 WHERE tenant_id = $1 AND user_id = $2 AND revoked_at IS NULL', [tenantId, userId, now.toISOString()]);
  }
  return toView(row);
}
