import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Clock, systemClock } from '../platform/clock.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import { PERMISSIONS, type Permission, type Principal } from './permissions.ts';

export const KEY_PREFIX = 'atr_';

/**
 * How much of a key is stored and listed as `key_prefix`. Generated keys show `atr_` + 6 of their 43 random
 * characters. The bootstrap key is chosen by a person (16+ characters, maybe little entropy) and stored as an
 * unsalted SHA-256, so it shows at most its first 4 (`atr_` for a key in the generated format): every listed
 * character would be one an attacker need not guess.
 */
export const BOOTSTRAP_PREFIX_LENGTH = 4;

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly key_prefix: string;
  readonly permissions: Permission[];
  /** The person the key reads as (lower-cased email); null = a service key. */
  readonly identity: { readonly email: string } | null;
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
    identity: typeof row.identity_email === 'string' ? { email: row.identity_email } : null,
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

/**
 * A key's use is written to `last_used_at` at most this often per key and process: a busy key costs one
 * UPDATE a minute, not one per request.
 */
export const KEY_USE_WRITE_INTERVAL_MS = 60_000;
const KEY_USE_TRACKED_MAX = 10_000;
const lastUseWrite = new WeakMap<Queryable, Map<string, number>>();

/** What `authenticateKey` records a use with. */
export interface KeyUseOptions {
  /** The time of the use (default: the system clock). */
  readonly clock?: Clock;
  /** Where a failed `last_used_at` write is reported (it never fails the authentication). */
  readonly log?: Logger;
}

let fallbackLog: Logger | undefined;
/** Only for callers that pass no logger: a write failure is still reported, on stderr. */
function defaultLog(): Logger {
  fallbackLog ??= createLogger({ level: 'warn', destination: process.stderr as never });
  return fallbackLog;
}

/**
 * Records a use of the key without delaying the caller: skipped when this process wrote one for the key less
 * than KEY_USE_WRITE_INTERVAL_MS ago, else one UPDATE that is not awaited (its failure is logged). The
 * condition keeps the stored time from going back when processes' clocks differ.
 */
function recordKeyUse(db: Queryable, keyId: string, use: KeyUseOptions): void {
  const now = (use.clock ?? systemClock).now();
  let writes = lastUseWrite.get(db);
  if (!writes) {
    writes = new Map();
    lastUseWrite.set(db, writes);
  }
  const last = writes.get(keyId);
  // Either direction: a clock set back does not silence the key for the size of the jump.
  if (last !== undefined && Math.abs(now.getTime() - last) < KEY_USE_WRITE_INTERVAL_MS) return;
  writes.delete(keyId);
  writes.set(keyId, now.getTime());
  if (writes.size > KEY_USE_TRACKED_MAX) {
    const oldest = writes.keys().next().value;
    if (oldest !== undefined) writes.delete(oldest);
  }
  db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [keyId, now.toISOString()]).catch(
    (err: unknown) => (use.log ?? defaultLog()).warn({ err, keyId }, 'could not record the API key use (last_used_at)'),
  );
}

/** Creates a key and returns its record with the plaintext, which is never stored and shown only here. */
export async function createApiKey(
  db: Queryable,
  input: { tenantId: string; name: string; permissions: readonly Permission[]; createdBy?: string; identityEmail?: string | null },
): Promise<ApiKeyRecord & { key: string }> {
  for (const p of input.permissions) {
    if (!PERMISSIONS.includes(p)) throw Errors.validation(`unknown permission '${p}'`);
  }
  const key = generateKey();
  const id = newId('key');
  const perms = [...new Set(input.permissions)];
  const r = await db.query(
    `INSERT INTO api_keys (id, tenant_id, name, key_hash, key_prefix, permissions, created_by, identity_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [id, input.tenantId, input.name, hashKey(key), key.slice(0, KEY_PREFIX.length + 6), perms, input.createdBy ?? null, input.identityEmail?.trim().toLowerCase() ?? null],
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

/**
 * Resolves a presented bearer key to its principal; null when unknown or revoked. Every success, from the
 * verification cache too, counts as a use of the key (`last_used_at`, written at most once a minute).
 */
export async function authenticateKey(db: Queryable, presented: string, use: KeyUseOptions = {}): Promise<Principal | null> {
  if (presented.length < 16 || presented.length > 256) return null;
  const hash = hashKey(presented);
  const cache = verified.get(db);
  const hit = cache?.get(hash);
  const nowMs = performance.now();
  // Captured before the read: a revoke that lands while it runs must not leave this answer cached.
  const seen = epoch;
  if (hit && hit.expires > nowMs && hit.epoch === seen) {
    recordKeyUse(db, hit.principal.id, use);
    return { ...hit.principal, permissions: new Set(hit.principal.permissions) };
  }
  const r = await db.query<{ id: string; tenant_id: string; name: string; permissions: Permission[]; key_hash: string; identity_email: string | null }>(
    'SELECT id, tenant_id, name, permissions, key_hash, identity_email FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  const row = r.rows[0];
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) return null;
  if (row.id === BOOTSTRAP_KEY_ID && bootstrapRefused.has(db)) return null;
  const principal: Principal = {
    kind: 'api_key',
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.name,
    permissions: new Set(row.permissions),
    email: row.identity_email ?? null,
  };
  const map = cache ?? new Map<string, { principal: Principal; expires: number; epoch: number }>();
  if (!cache) verified.set(db, map);
  map.delete(hash);
  map.set(hash, { principal, expires: nowMs + KEY_CACHE_TTL_MS, epoch: seen });
  if (map.size > KEY_CACHE_MAX) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  recordKeyUse(db, principal.id, use);
  return { ...principal, permissions: new Set(principal.permissions) };
}

const BOOTSTRAP_KEY_ID = 'key_bootstrap';
const bootstrapRefused = new WeakSet<Queryable>();

/**
 * Whether this process accepts the bootstrap key on `db`: only while it is started with ATRIUM_ADMIN_API_KEY
 * (docs/configuration.md: "when set, a key with every permission exists"). Without the variable its stored row is kept
 * (setting the variable again restores it) but refused, so removing the variable ends the key's use.
 */
export function acceptBootstrapKey(db: Queryable, accepted: boolean): void {
  if (accepted) bootstrapRefused.delete(db);
  else bootstrapRefused.add(db);
  epoch++;
}

/**
 * Makes ATRIUM_ADMIN_API_KEY a stored key of the default tenant with every permission (hash and at most
 * BOOTSTRAP_PREFIX_LENGTH characters). Runs on every start, so a row stored with a longer prefix is cut too.
 */
export async function upsertBootstrapKey(db: Queryable, plaintext: string): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, tenant_id, name, key_hash, key_prefix, permissions, created_by)
     VALUES ('${BOOTSTRAP_KEY_ID}', 'default', 'bootstrap-admin', $1, $2, $3, 'ATRIUM_ADMIN_API_KEY')
     ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash, key_prefix = EXCLUDED.key_prefix,
       permissions = EXCLUDED.permissions, revoked_at = NULL`,
    [hashKey(plaintext), plaintext.slice(0, BOOTSTRAP_PREFIX_LENGTH), [...PERMISSIONS]],
  );
  epoch++;
}
