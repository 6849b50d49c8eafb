import type { Permission } from '../../access/index.ts';
import { recordAudit } from '../../audit/index.ts';
import type { Queryable } from '../../platform/db/executor.ts';
import type { DatabaseExecutor } from '../../platform/db/index.ts';
import { newId } from '../../platform/ids.ts';
import { OAuthAudit } from './audit-actions.ts';
import { findClient, type OAuthClient } from './clients.ts';
import type { OAuthErrorCode } from './errors.ts';
import { createGrant, type GrantRow, type GrantSubject } from './grants.ts';
import { CODE_TTL_S, hashSecret, MCP_SCOPE, newSecret, REQUEST_TTL_S, sameHash } from './tokens.ts';

/** The authorization request's query (RFC 6749 §4.1.1, RFC 7636, RFC 8707), as received. */
export interface AuthorizeQuery {
  readonly client_id?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly response_type?: string | undefined;
  readonly state?: string | undefined;
  readonly scope?: string | undefined;
  readonly code_challenge?: string | undefined;
  readonly code_challenge_method?: string | undefined;
  readonly resource?: string | undefined;
}

export type AuthorizeCheck =
  /** Not safe to redirect (unknown client, unregistered redirect URI): the page shows the error. */
  | { readonly kind: 'page_error'; readonly message: string }
  /** Safe to redirect back to the client with the error (RFC 6749 §4.1.2.1). */
  | { readonly kind: 'redirect_error'; readonly location: string }
  | { readonly kind: 'ok'; readonly client: OAuthClient; readonly redirectUri: string; readonly state: string | null; readonly scope: string; readonly resource: string; readonly codeChallenge: string };

/** The redirect URI with `params` added to its query (existing ones kept, RFC 6749 §3.1.2). */
export function withParams(redirectUri: string, params: Record<string, string | null>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}

const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** Validates an authorization request in the order RFC 6749 requires: client and redirect URI before anything is redirected. */
export async function checkAuthorizeRequest(db: Queryable, q: AuthorizeQuery, resource: string): Promise<AuthorizeCheck> {
  const client = q.client_id ? await findClient(db, q.client_id) : null;
  if (!client) return { kind: 'page_error', message: q.client_id ? `unknown client_id '${q.client_id.slice(0, 100)}': the client must register again` : 'the request has no client_id' };
  const redirectUri = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : undefined);
  if (!redirectUri) return { kind: 'page_error', message: 'the request has no redirect_uri and the client registered several' };
  if (!client.redirectUris.includes(redirectUri)) {
    return { kind: 'page_error', message: `redirect_uri ${redirectUri.slice(0, 300)} is not one this client registered (it must match exactly)` };
  }
  const state = q.state ?? null;
  const fail = (error: OAuthErrorCode, description: string): AuthorizeCheck => ({
    kind: 'redirect_error',
    location: withParams(redirectUri, { error, error_description: description, state }),
  });
  if (state !== null && state.length > 1000) return fail('invalid_request', 'state is longer than 1000 characters');
  if (q.response_type !== 'code') return fail('unsupported_response_type', "response_type must be 'code'");
  if (!q.code_challenge) return fail('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256');
  if (q.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!CHALLENGE.test(q.code_challenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier');
  const scopes = (q.scope ?? MCP_SCOPE).split(' ').filter(Boolean);
  if (scopes.some((s) => s !== MCP_SCOPE)) return fail('invalid_scope', `the only scope is '${MCP_SCOPE}'`);
  if (q.resource !== undefined && q.resource !== resource) return fail('invalid_target', `resource must be ${resource}`);
  return { kind: 'ok', client, redirectUri, state, scope: MCP_SCOPE, resource, codeChallenge: q.code_challenge };
}

export interface PendingRequest {
  readonly id: string;
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state: string | null;
  readonly scope: string;
  readonly resource: string;
  readonly codeChallenge: string;
  readonly tenantId: string | null;
  readonly apiKeyId: string | null;
}

/** Stores a checked request until the person decides; returns its id and the browser binding for the cookie. */
export async function savePendingRequest(db: Queryable, ok: Extract<AuthorizeCheck, { kind: 'ok' }>, now: Date): Promise<{ id: string; binding: string }> {
  const id = newId('oar');
  const binding = newSecret();
  await db.query('DELETE FROM oauth_requests WHERE expires_at < $1', [new Date(now.getTime() - 86_400_000).toISOString()]);
  await db.query(
    `INSERT INTO oauth_requests (id, client_id, redirect_uri, state, scope, resource, code_challenge, browser_binding, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, ok.client.id, ok.redirectUri, ok.state, ok.scope, ok.resource, ok.codeChallenge, hashSecret(binding), now.toISOString(), new Date(now.getTime() + REQUEST_TTL_S * 1000).toISOString()],
  );
  return { id, binding };
}

/** The undecided, unexpired request `id`, only for the browser holding its binding cookie. */
export async function loadPendingRequest(db: Queryable, id: string, binding: string | undefined, now: Date): Promise<PendingRequest | null> {
  if (!binding || id.length > 100) return null;
  const r = await db.query<Record<string, string | null>>(
    'SELECT * FROM oauth_requests WHERE id = $1 AND decided_at IS NULL AND expires_at > $2',
    [id, now.toISOString()],
  );
  const row = r.rows[0];
  if (!row || !sameHash(hashSecret(binding), String(row.browser_binding))) return null;
  const client = await findClient(db, String(row.client_id));
  if (!client) return null;
  return {
    id,
    client,
    redirectUri: String(row.redirect_uri),
    state: row.state ?? null,
    scope: String(row.scope),
    resource: String(row.resource),
    codeChallenge: String(row.code_challenge),
    tenantId: row.tenant_id ?? null,
    apiKeyId: row.api_key_id ?? null,
  };
}

/** Remembers the API key the person pasted (its id only) as the request's subject. */
export async function setRequestKey(db: Queryable, id: string, tenantId: string, apiKeyId: string): Promise<void> {
  await db.query('UPDATE oauth_requests SET tenant_id = $2, api_key_id = $3 WHERE id = $1 AND decided_at IS NULL', [id, tenantId, apiKeyId]);
}

/** Marks the request decided; false when another submission decided it first. */
export async function decideRequest(db: Queryable, id: string, now: Date): Promise<boolean> {
  const r = await db.query('UPDATE oauth_requests SET decided_at = $2 WHERE id = $1 AND decided_at IS NULL RETURNING id', [id, now.toISOString()]);
  return r.rows.length > 0;
}

/** Consent given: the grant and a one-time code (stored hashed) bound to the client, redirect URI and PKCE challenge. */
export async function issueCode(db: DatabaseExecutor, req: PendingRequest, subject: GrantSubject, now: Date): Promise<{ grant: GrantRow; location: string }> {
  return db.transaction(async (tx) => {
    const grant = await createGrant(tx, { subject, clientId: req.client.id, scope: req.scope, resource: req.resource, redirectUri: req.redirectUri, now });
    const code = newSecret('mcp_ac_');
    await tx.query('DELETE FROM oauth_codes WHERE expires_at < $1', [new Date(now.getTime() - 86_400_000).toISOString()]);
    await tx.query(
      `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [hashSecret(code), grant.id, req.client.id, req.redirectUri, req.codeChallenge, new Date(now.getTime() + CODE_TTL_S * 1000).toISOString()],
    );
    return { grant, location: withParams(req.redirectUri, { code, state: req.state }) };
  });
}

/** What the consent page lists as granted. */
export function permissionSummary(perms: readonly Permission[]): string[] {
  const text: Record<Permission, string> = {
    query: 'search and read the documents you may see (query_knowledge, get_document)',
    'connector:read': 'list your organization’s connectors',
    'connector:write': 'change connectors',
    admin: 'administer this Atrium tenant',
    act_as: 'read as another person',
    'ai_usage:read': 'read AI usage records',
  };
  return perms.map((p) => `${p}: ${text[p]}`);
}

/**
 * The person's answer on the consent page, once per request: `already_decided` when another submission answered
 * first; a denial (or an answer with nobody signed in) redirects with access_denied; an approval creates the grant and
 * redirects with the code. Audits `mcp.oauth.denied` / `mcp.oauth.granted` when a subject is known.
 */
export async function answerConsent(
  db: DatabaseExecutor,
  req: PendingRequest,
  subject: GrantSubject | null,
  decision: 'allow' | 'deny',
  now: Date,
): Promise<{ readonly outcome: 'already_decided' } | { readonly outcome: 'denied' | 'granted'; readonly location: string }> {
  if (!(await decideRequest(db, req.id, now))) return { outcome: 'already_decided' };
  const audit = (action: string, details: Record<string, unknown>) =>
    subject
      ? recordAudit(db, {
          tenantId: subject.tenantId,
          action,
          actorId: subject.kind === 'user' ? subject.userId : subject.apiKeyId,
          userId: subject.kind === 'user' ? subject.userId : subject.keyName,
          details: { client_id: req.client.id, client_name: req.client.name, redirect_uri: req.redirectUri, subject_kind: subject.kind, email: subject.email, ...details },
          at: now,
        })
      : Promise.resolve('');
  if (decision === 'deny' || !subject) {
    await audit(OAuthAudit.denied, {});
    return { outcome: 'denied', location: withParams(req.redirectUri, { error: 'access_denied', error_description: 'the person declined', state: req.state }) };
  }
  const issued = await issueCode(db, req, subject, now);
  await audit(OAuthAudit.granted, { grant_id: issued.grant.id, permissions: issued.grant.permissions, scope: issued.grant.scope, resource: issued.grant.resource });
  return { outcome: 'granted', location: issued.location };
}
