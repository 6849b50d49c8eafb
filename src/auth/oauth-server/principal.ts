import type { Principal } from '../../access/index.ts';
import type { Queryable } from '../../platform/db/executor.ts';
import { principalForAccessToken } from './grants.ts';
import { hashSecret, isAccessToken } from './tokens.ts';

/** A grant's use is written to `last_used_at` at most this often per grant and process. */
const USE_WRITE_INTERVAL_MS = 60_000;
const lastWrite = new Map<string, number>();

/**
 * The principal of an OAuth access token (`mcp_at_…`): the person of its grant, with the consented permissions they
 * still hold; null when the token is unknown, expired or its grant revoked (`known`: the token was issued here). Looked up on every request (one indexed
 * query), so a revocation applies at once on every API process.
 */
export async function authenticateAccessToken(db: Queryable, token: string, now: Date): Promise<{ principal: Principal | null; known: boolean }> {
  if (!isAccessToken(token) || token.length > 100) return { principal: null, known: false };
  const hash = hashSecret(token);
  const principal = await principalForAccessToken(db, hash, now);
  if (!principal) {
    // Known = issued by us (expired, or its grant revoked: revocation deletes the rows, so those count as unknown).
    const r = await db.query("SELECT 1 FROM oauth_tokens WHERE token_hash = $1 AND kind = 'access'", [hash]);
    return { principal: null, known: r.rows.length > 0 };
  }
  const last = lastWrite.get(principal.id);
  if (last === undefined || Math.abs(now.getTime() - last) >= USE_WRITE_INTERVAL_MS) {
    lastWrite.delete(principal.id);
    lastWrite.set(principal.id, now.getTime());
    if (lastWrite.size > 10_000) lastWrite.delete(lastWrite.keys().next().value!);
    db.query('UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1', [principal.id, now.toISOString()]).catch(() => undefined);
  }
  return { principal, known: true };
}
