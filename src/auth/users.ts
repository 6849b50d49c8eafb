import type { Role } from '../access/index.ts';
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
