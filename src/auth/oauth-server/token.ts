import { recordAudit } from '../../audit/index.ts';
import type { DatabaseExecutor } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { OAuthAudit } from './audit-actions.ts';
import type { OAuthClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { grantState, revokeGrant } from './grants.ts';
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_TTL_S,
  hashSecret,
  MCP_SCOPE,
  newSecret,
  PKCE_PATTERN,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_S,
  s256,
  sameHash,
} from './tokens.ts';

export interface OAuthDeps {
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly clock: { now(): Date };
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A token request's form fields (RFC 6749 §4.1.3, §6; RFC 8707 `resource`). */
export interface TokenForm {
  readonly grant_type?: string | undefined;
  readonly code?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly code_verifier?: string | undefined;
  readonly refresh_token?: string | undefined;
  readonly scope?: string | undefined;
  readonly resource?: string | undefined;
}

async function issueTokens(db: DatabaseExecutor, grantId: string, grantExpires: Date, now: Date): Promise<TokenResponse> {
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX);
  const accessExpires = new Date(Math.min(now.getTime() + ACCESS_TOKEN_TTL_S * 1000, grantExpires.getTime()));
  const refreshExpires = new Date(Math.min(now.getTime() + REFRESH_TOKEN_TTL_S * 1000, grantExpires.getTime()));
  // Housekeeping: this grant's expired tokens, and refresh tokens spent over a day ago (kept that long to spot reuse).
  await db.query(`DELETE FROM oauth_tokens WHERE grant_id = $1 AND (expires_at < $2 OR used_at < $3)`, [grantId, now.toISOString(), new Date(now.getTime() - 86_400_000).toISOString()]);
  await db.query(
    `INSERT INTO oauth_tokens (token_hash, grant_id, kind, created_at, expires_at) VALUES ($1, $2, 'access', $4, $5), ($3, $2, 'refresh', $4, $6)`,
    [hashSecret(access), grantId, hashSecret(refresh), now.toISOString(), accessExpires.toISOString(), refreshExpires.toISOString()],
  );
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.max(1, Math.floor((accessExpires.getTime() - now.getTime()) / 1000)),
    refresh_token: refresh,
    scope: MCP_SCOPE,
  };
}

function checkScopeAndResource(form: TokenForm, resource: string): void {
  if (form.scope?.split(' ').some((s) => s && s !== MCP_SCOPE)) throw new OAuthError('invalid_scope', `the only scope is '${MCP_SCOPE}'`);
  if (form.resource !== undefined && form.resource !== resource) throw new OAuthError('invalid_target', `resource must be ${resource}`);
}

async function audit(deps: OAuthDeps, tenantId: string, action: string, details: Record<string, unknown>, actor?: { id?: string | null; userId?: string | null }) {
  await recordAudit(deps.db, { tenantId, action, actorId: actor?.id ?? null, userId: actor?.userId ?? null, details, at: deps.clock.now() });
}

/** grant_type=authorization_code: the code once, for its client and redirect URI, with the PKCE verifier. */
export async function exchangeCode(deps: OAuthDeps, client: OAuthClient, form: TokenForm, resource: string): Promise<TokenResponse> {
  const now = deps.clock.now();
  if (!form.code || form.code.length > 200) throw new OAuthError('invalid_request', 'send code (as received on the redirect URI)');
  const codeHash = hashSecret(form.code);
  if (!form.code_verifier) throw new OAuthError('invalid_request', 'send code_verifier (PKCE is required)');
  if (!PKCE_PATTERN.test(form.code_verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~]');
  checkScopeAndResource(form, resource);
  const r = await deps.db.query<{ grant_id: string; client_id: string; redirect_uri: string; code_challenge: string; expires_at: Date; used_at: Date | null }>(
    'SELECT grant_id, client_id, redirect_uri, code_challenge, expires_at, used_at FROM oauth_codes WHERE code_hash = $1',
    [codeHash],
  );
  const code = r.rows[0];
  if (!code || code.client_id !== client.id) throw new OAuthError('invalid_grant', 'the authorization code is unknown, or was issued to another client');
  const state = await grantState(deps.db, code.grant_id, now);
  const tenantId = 'principal' in state ? state.principal.tenantId : null;
  const refuse = async (reason: string, description: string) => {
    if (tenantId) await audit(deps, tenantId, OAuthAudit.tokenRefused, { grant_id: code.grant_id, client_id: client.id, grant_type: 'authorization_code', reason });
    return new OAuthError('invalid_grant', description);
  };
  if (code.used_at) {
    // RFC 6749 §4.1.2: a code used twice may have been stolen; the tokens issued for it are revoked.
    const revoked = await revokeGrant(deps.db, { grantId: code.grant_id, by: 'oauth:code_reuse', reason: 'code_reuse', now });
    if (revoked) await audit(deps, revoked.tenantId, OAuthAudit.revoked, { grant_id: revoked.id, client_id: client.id, reason: 'code_reuse' });
    throw new OAuthError('invalid_grant', 'the authorization code was already used; the grant it created is revoked');
  }
  if (new Date(code.expires_at).getTime() <= now.getTime()) throw await refuse('code_expired', 'the authorization code has expired: authorize again');
  if (form.redirect_uri !== undefined && form.redirect_uri !== code.redirect_uri) throw await refuse('redirect_uri_mismatch', 'redirect_uri differs from the authorization request’s');
  if (!sameHash(s256(form.code_verifier), code.code_challenge)) throw await refuse('pkce_failed', 'code_verifier does not match the code_challenge (PKCE)');
  if (!('principal' in state)) throw new OAuthError('invalid_grant', `the grant can no longer be used (${state.lapsed})`);
  const spent = await deps.db.query('UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL RETURNING grant_id', [codeHash, now.toISOString()]);
  if (!spent.rows.length) throw new OAuthError('invalid_grant', 'the authorization code was already used');
  const g = await deps.db.query<{ expires_at: Date }>('SELECT expires_at FROM oauth_grants WHERE id = $1', [code.grant_id]);
  return issueTokens(deps.db, code.grant_id, new Date(g.rows[0]!.expires_at), now);
}

/**
 * grant_type=refresh_token with rotation: the presented refresh token is spent and a new pair issued. A spent
 * token presented again means it leaked (or the client lost a response): the grant is revoked (OAuth 2.1 §4.3.1).
 * Every refusal of a known token is audited in its grant's tenant.
 */
export async function refreshTokens(deps: OAuthDeps, client: OAuthClient, form: TokenForm, resource: string): Promise<TokenResponse> {
  const now = deps.clock.now();
  if (!form.refresh_token) throw new OAuthError('invalid_request', 'send refresh_token');
  checkScopeAndResource(form, resource);
  const hash = hashSecret(form.refresh_token.slice(0, 200));
  const r = await deps.db.query<{ grant_id: string; expires_at: Date; used_at: Date | null; tenant_id: string; client_id: string }>(
    `SELECT t.grant_id, t.expires_at, t.used_at, g.tenant_id, g.client_id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
     WHERE t.token_hash = $1 AND t.kind = 'refresh'`,
    [hash],
  );
  const row = r.rows[0];
  if (!row) {
    deps.log.info({ client_id: client.id }, 'oauth: unknown refresh token refused');
    throw new OAuthError('invalid_grant', 'the refresh token is unknown, revoked or expired: authorize again');
  }
  const failed = async (reason: string, description: string) => {
    await audit(deps, row.tenant_id, OAuthAudit.refreshFailed, { grant_id: row.grant_id, client_id: client.id, reason });
    return new OAuthError('invalid_grant', description);
  };
  if (row.client_id !== client.id) throw await failed('client_mismatch', 'the refresh token was issued to another client');
  if (row.used_at) {
    const revoked = await revokeGrant(deps.db, { grantId: row.grant_id, by: 'oauth:refresh_reuse', reason: 'refresh_token_reuse', now });
    if (revoked) await audit(deps, row.tenant_id, OAuthAudit.revoked, { grant_id: row.grant_id, client_id: client.id, reason: 'refresh_token_reuse' });
    throw await failed('refresh_token_reuse', 'the refresh token was already used (rotation): the grant is revoked, authorize again');
  }
  if (new Date(row.expires_at).getTime() <= now.getTime()) throw await failed('refresh_token_expired', 'the refresh token has expired: authorize again');
  const state = await grantState(deps.db, row.grant_id, now);
  if (!('principal' in state)) throw await failed(state.lapsed, `the grant can no longer be used (${state.lapsed}): authorize again`);
  const spent = await deps.db.query("UPDATE oauth_tokens SET used_at = $2 WHERE token_hash = $1 AND kind = 'refresh' AND used_at IS NULL RETURNING grant_id", [hash, now.toISOString()]);
  if (!spent.rows.length) throw await failed('refresh_token_reuse', 'the refresh token was already used');
  // Access tokens issued before this refresh stay valid until they expire (at most ACCESS_TOKEN_TTL_S).
  const g = await deps.db.query<{ expires_at: Date }>('SELECT expires_at FROM oauth_grants WHERE id = $1', [row.grant_id]);
  return issueTokens(deps.db, row.grant_id, new Date(g.rows[0]!.expires_at), now);
}

/**
 * RFC 7009: revokes the grant of an access or refresh token issued to this client (all its tokens). Unknown tokens,
 * and tokens of other clients, are ignored: the answer is 200 either way.
 */
export async function revokeToken(deps: OAuthDeps, client: OAuthClient, token: string | undefined): Promise<void> {
  if (!token) throw new OAuthError('invalid_request', 'send token');
  const r = await deps.db.query<{ grant_id: string; client_id: string }>(
    'SELECT t.grant_id, g.client_id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1',
    [hashSecret(token.slice(0, 200))],
  );
  const row = r.rows[0];
  if (!row || row.client_id !== client.id) return;
  const revoked = await revokeGrant(deps.db, { grantId: row.grant_id, by: `client:${client.id}`, reason: 'client_revocation', now: deps.clock.now() });
  if (revoked) await audit(deps, revoked.tenantId, OAuthAudit.revoked, { grant_id: revoked.id, client_id: client.id, reason: 'client_revocation', email: revoked.email });
}
