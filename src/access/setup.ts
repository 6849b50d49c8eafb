import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/index.ts';
import type { Queryable } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { Ops } from '../platform/operations.ts';
import { type ApiKeyRecord, createApiKey, ensureTenant } from './api-keys.ts';

/** How long a first-run setup code works (README "First run"). */
export const SETUP_CODE_TTL_MS = 60 * 60 * 1000;
const DEFAULT_TENANT = 'default';

const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');

/** Whether the instance still needs its first admin key: no API key of any tenant exists, revoked or not. */
export async function setupRequired(db: Queryable): Promise<boolean> {
  const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM api_keys');
  return Number(r.rows[0]?.n ?? 0) === 0;
}

/**
 * A new one-time setup code when the instance has no key yet (null otherwise); earlier unused codes stop working.
 * Only its hash is stored: the code itself is shown once, in the start banner.
 */
export async function issueSetupCode(db: Queryable, now: Date): Promise<{ code: string; expiresAt: Date } | null> {
  if (!(await setupRequired(db))) return null;
  const code = `setup_${randomBytes(24).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + SETUP_CODE_TTL_MS);
  await db.query('DELETE FROM setup_codes WHERE used_at IS NULL');
  await db.query('INSERT INTO setup_codes (id, code_hash, expires_at) VALUES ($1, $2, $3)', [newId('setup'), hashCode(code), expiresAt]);
  return { code, expiresAt };
}

/**
 * Spends a setup code on the instance's first admin key (tenant `default`); null when the code is unknown, used or
 * expired, or when a key exists by now (someone else finished the setup). One statement claims the code, so two
 * visitors racing with it get one key between them. Audits `apikey.created` (actor `setup`).
 */
export async function redeemSetupCode(db: Queryable, input: { code: string; name: string; now: Date }): Promise<(ApiKeyRecord & { key: string }) | null> {
  const claimed = await db.query<{ id: string }>(
    `UPDATE setup_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 AND NOT EXISTS (SELECT 1 FROM api_keys) RETURNING id`,
    [hashCode(input.code), input.now],
  );
  if (claimed.rows.length === 0) return null;
  await ensureTenant(db, DEFAULT_TENANT);
  const created = await createApiKey(db, { tenantId: DEFAULT_TENANT, name: input.name, permissions: ['admin'], createdBy: 'first-run setup' });
  await recordAudit(db, { tenantId: created.tenant_id, action: Ops.apiKeyCreated, actorId: 'setup', userId: 'first-run setup', details: { key_id: created.id, via: 'setup_code' } });
  return created;
}
