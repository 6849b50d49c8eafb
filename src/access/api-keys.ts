import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { PERMISSIONS, type Permission, type Principal } from './permissions.ts';

export const KEY_PREFIX = 'atr_';

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly key_prefix: string;
  readonly permissions: Permission[];
  readonly created_by: string | null;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
}

/** Keys are 256-bit random, so a plain SHA-256 is a sufficient one-way store (no salt needed). */
export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

function toRecord(row: Record<string, unknown>): ApiKeyRecord {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v == null ? null : String(v));
  return {
    id: String(row.id),
    tenant_id: String(row.tenant_id),
    name: String(row.name),
    key_prefix: String(row.key_prefix),
    permissions: row.permissions as Permission[],
    created_by: (row.created_by as string | null) ?? null,
    created_at: iso(row.created_at) ?? '',
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

export async function ensureTenant(db: Queryable, tenantId: string, name?: string): Promise<void> {
  await db.query('INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [tenantId, name ?? tenantId]);
}

export async function tenantExists(db: Queryable, tenantId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM tenants WHERE id = $1', [tenantId]);
  return r.rows.length > 0;
}

/**
 * Verified keys are remembered this long per database (keyed by hash, valid keys only), so a hot endpoint
 * does not read api_keys on every request. A revoke through `revokeApiKey` in this process takes effect at
 * once; a revoke by another process (another API replica, the CLI) within this many milliseconds.
 */
export const KEY_CACHE_TTL_MS = 2_000;
const KEY_CACHE_MAX = 1_000;
const verified = new WeakMap<Queryable, Map<string, { principal: Principal; expires: number; epoch: number }>>();
/** Bumped by every revoke or bootstrap-key change in this process: all remembered verifications lapse. */
let epoch = 0;

/** Creates a key and returns its record with the plaintext, which is never stored and shown only here. */
export async function createApiKey(
  db: Queryable,
  input: { tenantId: string; name: string; permissions: readonly Permission[]; createdBy?: string },
): Promise<ApiKeyRecord & { key: string }> {
  for (const p of input.permissions) {
    if (!PERMISSIONS.includes(p)) throw Errors.validation(`unknown permission '${p}'`);
  }
  const key = generateKey();
  const id = newId('key');
  const perms = [...new Set(input.permissions)];
  const r = await db.query(
    `INSERT INTO api_keys (id, tenant_id, name, key_hash, key_prefix, permissions, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [id, input.tenantId, input.name, hashKey(key), key.slice(0, KEY_PREFIX.length + 6), perms, input.createdBy ?? null],
  );
  return { ...toRecord(r.rows[0]!), key };
}

export async function listApiKeys(db: Queryable, tenantId: string): Promise<ApiKeyRecord[]> {
  const r = await db.query('SELECT * FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
  return r.rows.map(toRecord);
}

/** Revokes a key of the tenant; returns the record, or null when no such key exists there. */
export async function revokeApiKey(db: Queryable, tenantId: string, id: string): Promise<ApiKeyRecord | null> {
  const r = await db.query(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id],
  );
  epoch++;
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** Resolves a presented bearer key to its principal; null when unknown or revoked. */
export async function authenticateKey(db: Queryable, presented: string): Promise<Principal | null> {
  if (presented.length < 16 || presented.length > 256) return null;
  const hash = hashKey(presented);
  const cache = verified.get(db);
  const hit = cache?.get(hash);
  const nowMs = performance.now();
  // Captured before the read: a revoke that lands while it runs must not leave this answer cached.
  const seen = epoch;
  if (hit && hit.expires > nowMs && hit.epoch === seen) return { ...hit.principal, permissions: new Set(hit.principal.permissions) };
  const r = await db.query<{ id: string; tenant_id: string; name: string; permissions: Permission[]; key_hash: string }>(
    'SELECT id, tenant_id, name, permissions, key_hash FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  const row = r.rows[0];
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) return null;
  const principal: Principal = {
    kind: 'api_key',
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.name,
    permissions: new Set(row.permissions),
  };
  const map = cache ?? new Map<string, { principal: Principal; expires: number; epoch: number }>();
  if (!cache) verified.set(db, map);
  map.delete(hash);
  map.set(hash, { principal, expires: nowMs + KEY_CACHE_TTL_MS, epoch: seen });
  if (map.size > KEY_CACHE_MAX) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  return { ...principal, permissions: new Set(principal.permissions) };
}

/** Makes ATRIUM_ADMIN_API_KEY a stored key of the default tenant with every permission (hash only). */
export async function upsertBootstrapKey(db: Queryable, plaintext: string): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, tenant_id, name, key_hash, key_prefix, permissions, created_by)
     VALUES ('key_bootstrap', 'default', 'bootstrap-admin', $1, $2, $3, 'ATRIUM_ADMIN_API_KEY')
     ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash, key_prefix = EXCLUDED.key_prefix,
       permissions = EXCLUDED.permissions, revoked_at = NULL`,
    [hashKey(plaintext), plaintext.slice(0, 10), [...PERMISSIONS]],
  );
  epoch++;
}
