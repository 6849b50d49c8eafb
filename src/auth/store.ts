import { createHash } from 'node:crypto';
import type { Role } from '../access/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import type { AttributeMapping } from './attributes.ts';

export type ProviderType = 'saml' | 'oidc';

export interface SamlSettings {
  readonly idp_entity_id: string;
  readonly idp_sso_url: string;
  readonly idp_certificate: string;
  readonly certificate: { readonly subject: string; readonly not_before: string; readonly not_after: string; readonly fingerprint_sha256: string };
  readonly attribute_mapping: AttributeMapping;
}

export interface OidcSettings {
  readonly client_id: string;
  readonly issuer_url: string;
  readonly scopes: string[];
  /** The discovery document as validated at save time. */
  readonly discovery: Record<string, unknown>;
  readonly attribute_mapping: AttributeMapping;
}

export interface SsoConfig {
  readonly tenantId: string;
  readonly activeProvider: ProviderType | null;
  readonly saml: SamlSettings | null;
  readonly oidc: OidcSettings | null;
  readonly oidcClientSecretEnc: string | null;
  readonly groupMapping: Record<string, Role>;
  readonly defaultRole: Role;
  readonly debugMode: boolean;
  readonly sessionTtlSeconds: number | null;
  readonly lastLoginAt: Date | null;
  readonly updatedAt: Date;
}

const toDate = (v: unknown): Date | null => (v == null ? null : v instanceof Date ? v : new Date(String(v)));

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export async function getSsoConfig(db: Queryable, tenantId: string): Promise<SsoConfig | null> {
  const r = await db.query<Record<string, unknown>>('SELECT * FROM sso_configs WHERE tenant_id = $1', [tenantId]);
  const row = r.rows[0];
  if (!row) return null;
  return {
    tenantId,
    activeProvider: (row.active_provider as ProviderType | null) ?? null,
    saml: (row.saml as SamlSettings | null) ?? null,
    oidc: (row.oidc as OidcSettings | null) ?? null,
    oidcClientSecretEnc: (row.oidc_client_secret_enc as string | null) ?? null,
    groupMapping: (row.group_mapping as Record<string, Role>) ?? {},
    defaultRole: row.default_role as Role,
    debugMode: Boolean(row.debug_mode),
    sessionTtlSeconds: row.session_ttl_seconds == null ? null : Number(row.session_ttl_seconds),
    lastLoginAt: toDate(row.last_login_at),
    updatedAt: toDate(row.updated_at) ?? new Date(0),
  };
}

/** Saving a provider's settings makes it the tenant's one active provider. */
export async function saveSamlSettings(db: Queryable, tenantId: string, saml: SamlSettings, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO sso_configs (tenant_id, active_provider, saml, updated_at) VALUES ($1, 'saml', $2, $3)
     ON CONFLICT (tenant_id) DO UPDATE SET active_provider = 'saml', saml = EXCLUDED.saml, updated_at = EXCLUDED.updated_at`,
    [tenantId, JSON.stringify(saml), now.toISOString()],
  );
}

export async function saveOidcSettings(db: Queryable, tenantId: string, oidc: OidcSettings, secretEnc: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO sso_configs (tenant_id, active_provider, oidc, oidc_client_secret_enc, updated_at) VALUES ($1, 'oidc', $2, $3, $4)
     ON CONFLICT (tenant_id) DO UPDATE SET active_provider = 'oidc', oidc = EXCLUDED.oidc,
       oidc_client_secret_enc = EXCLUDED.oidc_client_secret_enc, updated_at = EXCLUDED.updated_at`,
    [tenantId, JSON.stringify(oidc), secretEnc, now.toISOString()],
  );
}

export async function saveGroupMapping(db: Queryable, tenantId: string, mapping: Record<string, Role>, defaultRole: Role, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO sso_configs (tenant_id, group_mapping, default_role, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id) DO UPDATE SET group_mapping = EXCLUDED.group_mapping, default_role = EXCLUDED.default_role,
       updated_at = EXCLUDED.updated_at`,
    [tenantId, JSON.stringify(mapping), defaultRole, now.toISOString()],
  );
}

export async function saveRuntimeSettings(
  db: Queryable,
  tenantId: string,
  patch: { debugMode?: boolean | undefined; sessionTtlSeconds?: number | null | undefined },
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO sso_configs (tenant_id, debug_mode, session_ttl_seconds, updated_at) VALUES ($1, COALESCE($2, false), $3, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET
       debug_mode = COALESCE($2, sso_configs.debug_mode),
       session_ttl_seconds = CASE WHEN $4 THEN $3 ELSE sso_configs.session_ttl_seconds END,
       updated_at = $5`,
    [tenantId, patch.debugMode ?? null, patch.sessionTtlSeconds ?? null, patch.sessionTtlSeconds !== undefined, now.toISOString()],
  );
}

export async function markLogin(db: Queryable, tenantId: string, now: Date): Promise<void> {
  await db.query('UPDATE sso_configs SET last_login_at = $2 WHERE tenant_id = $1', [tenantId, now.toISOString()]);
}

// --- outstanding sign-in requests -------------------------------------------------------------

export async function saveRequest(
  db: Queryable,
  r: { id: string; tenantId: string; provider: ProviderType; secretEnc?: string; browserBinding?: string; expiresAt: Date; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO sso_requests (id, tenant_id, provider_type, secret_enc, browser_binding, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [r.id, r.tenantId, r.provider, r.secretEnc ?? null, r.browserBinding ?? null, r.now.toISOString(), r.expiresAt.toISOString()],
  );
  // Housekeeping: expired requests and replay records are useless once past their window.
  await db.query('DELETE FROM sso_requests WHERE expires_at < $1', [new Date(r.now.getTime() - 3_600_000).toISOString()]);
}

export interface StoredRequest {
  readonly id: string;
  readonly tenantId: string;
  readonly provider: ProviderType;
  readonly secretEnc: string | null;
  readonly browserBinding: string | null;
  readonly expiresAt: Date;
  readonly consumedAt: Date | null;
}

export async function findRequest(db: Queryable, id: string): Promise<StoredRequest | null> {
  const r = await db.query<Record<string, unknown>>('SELECT * FROM sso_requests WHERE id = $1', [id]);
  const row = r.rows[0];
  if (!row) return null;
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    provider: row.provider_type as ProviderType,
    secretEnc: (row.secret_enc as string | null) ?? null,
    browserBinding: (row.browser_binding as string | null) ?? null,
    expiresAt: toDate(row.expires_at) ?? new Date(0),
    consumedAt: toDate(row.consumed_at),
  };
}

/** Marks a request used; false when it is unknown, of another tenant, expired or already used (one use only). */
export async function consumeRequest(db: Queryable, tenantId: string, id: string, now: Date): Promise<boolean> {
  const r = await db.query(
    `UPDATE sso_requests SET consumed_at = $3 WHERE id = $1 AND tenant_id = $2 AND consumed_at IS NULL AND expires_at > $3 RETURNING id`,
    [id, tenantId, now.toISOString()],
  );
  return r.rows.length === 1;
}

/** Records an assertion id; false when it was already consumed (a replay). */
export async function consumeAssertion(db: Queryable, tenantId: string, assertionId: string, expiresAt: Date, now: Date): Promise<boolean> {
  await db.query('DELETE FROM sso_consumed_assertions WHERE expires_at < $1', [new Date(now.getTime() - 86_400_000).toISOString()]);
  const r = await db.query(
    `INSERT INTO sso_consumed_assertions (tenant_id, assertion_id, expires_at, consumed_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING assertion_id`,
    [tenantId, assertionId, expiresAt.toISOString(), now.toISOString()],
  );
  return r.rows.length === 1;
}

export async function assertionSeen(db: Queryable, tenantId: string, assertionId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM sso_consumed_assertions WHERE tenant_id = $1 AND assertion_id = $2', [tenantId, assertionId]);
  return r.rows.length > 0;
}
