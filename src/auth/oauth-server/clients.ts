import { z } from 'zod';
import type { Queryable } from '../../platform/db/executor.ts';
import { newId } from '../../platform/ids.ts';
import { OAuthError } from './errors.ts';
import { hashSecret, MCP_SCOPE, newSecret, sameHash } from './tokens.ts';

export const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
export const MAX_REDIRECT_URIS = 10;

export interface OAuthClient {
  readonly id: string;
  readonly name: string;
  readonly clientUri: string | null;
  readonly redirectUris: readonly string[];
  readonly authMethod: AuthMethod;
  readonly secretHash: string | null;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Redirect URIs are compared exactly; only https, or http on a loopback host (a native client's local listener). */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.username || u.password) return 'must not contain user information';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return 'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)';
}

const registrationSchema = z.object({
  redirect_uris: z.array(z.string().min(1).max(2000)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().url().max(2000).optional(),
  token_endpoint_auth_method: z.enum(AUTH_METHODS).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  scope: z.string().max(1000).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});

export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_name: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  scope: string;
}

/** RFC 7591 registration: validates the metadata (RFC 7591 §3.2.2 errors) and stores the client (secret hashed). */
export async function registerClient(db: Queryable, body: unknown, now: Date): Promise<RegistrationResponse> {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'body';
    const code = field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(code, `${field}: ${issue.message}`);
  }
  const m = parsed.data;
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri)} ${problem}`);
  }
  const grantTypes = m.grant_types ?? ['authorization_code', 'refresh_token'];
  const badGrant = grantTypes.find((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (badGrant) throw new OAuthError('invalid_client_metadata', `grant_types: '${badGrant}' is not supported (authorization_code, refresh_token)`);
  const responseTypes = m.response_types ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) throw new OAuthError('invalid_client_metadata', "response_types: only 'code' is supported");
  if (m.scope?.split(' ').some((s) => s && s !== MCP_SCOPE)) {
    throw new OAuthError('invalid_client_metadata', `scope: only '${MCP_SCOPE}' is offered`);
  }
  // RFC 7591 §2: the default method is client_secret_basic.
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  const secret = method === 'none' ? null : newSecret('mcps_');
  const id = newId('mcpc');
  const name = m.client_name ?? 'Unnamed MCP client';
  const redirectUris = [...new Set(m.redirect_uris)];
  // Housekeeping: clients registered over 30 days ago that nobody ever consented to.
  await db.query(
    `DELETE FROM oauth_clients c WHERE c.created_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)`,
    [new Date(now.getTime() - 30 * 86_400_000).toISOString()],
  );
  await db.query(
    `INSERT INTO oauth_clients (id, client_name, client_uri, redirect_uris, token_endpoint_auth_method, client_secret_hash, software_id, software_version, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, name, m.client_uri ?? null, JSON.stringify(redirectUris), method, secret ? hashSecret(secret) : null, m.software_id ?? null, m.software_version ?? null, now.toISOString()],
  );
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: name,
    ...(m.client_uri ? { client_uri: m.client_uri } : {}),
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: method,
    scope: MCP_SCOPE,
  };
}

export async function findClient(db: Queryable, id: string): Promise<OAuthClient | null> {
  if (!id || id.length > 100) return null;
  const r = await db.query<{ id: string; client_name: string; client_uri: string | null; redirect_uris: string[]; token_endpoint_auth_method: AuthMethod; client_secret_hash: string | null }>(
    'SELECT id, client_name, client_uri, redirect_uris, token_endpoint_auth_method, client_secret_hash FROM oauth_clients WHERE id = $1',
    [id],
  );
  const row = r.rows[0];
  if (!row) return null;
  return { id: row.id, name: row.client_name, clientUri: row.client_uri, redirectUris: row.redirect_uris, authMethod: row.token_endpoint_auth_method, secretHash: row.client_secret_hash };
}

/** What a token or revocation request presents: `Authorization: Basic` or client_id (+ client_secret) in the form. */
export interface ClientCredentials {
  readonly authorization?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
}

function basic(header: string | undefined): { id: string; secret: string } | null {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  try {
    return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
  } catch {
    return null;
  }
}

/** RFC 6749 §2.3: authenticates the client by its registered method; `invalid_client` (401) otherwise. */
export async function authenticateClient(db: Queryable, creds: ClientCredentials): Promise<OAuthClient> {
  const fromBasic = basic(creds.authorization);
  const id = fromBasic?.id ?? creds.clientId;
  const refuse = (why: string) => new OAuthError('invalid_client', why, 401, fromBasic ? { 'www-authenticate': 'Basic realm="atrium"' } : {});
  if (!id) throw refuse('client authentication failed: send client_id');
  const client = await findClient(db, id);
  if (!client) throw refuse('client authentication failed: unknown client_id (register again)');
  if (client.authMethod === 'none') {
    if (fromBasic || creds.clientSecret) throw refuse('this client was registered as a public client (token_endpoint_auth_method none): send no secret');
    return client;
  }
  const secret = client.authMethod === 'client_secret_basic' ? fromBasic?.secret : (creds.clientSecret ?? fromBasic?.secret);
  if (!secret || !client.secretHash || !sameHash(hashSecret(secret), client.secretHash)) {
    throw refuse(`client authentication failed: send the client secret (${client.authMethod})`);
  }
  return client;
}
