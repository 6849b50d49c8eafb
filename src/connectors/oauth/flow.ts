import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordAudit } from '../../audit/index.ts';
import type { Queryable } from '../../platform/db/index.ts';
import { Errors } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { Ops } from '../../platform/operations.ts';
import { maskSecrets, secretStrings } from '../../platform/secrets.ts';
import { getKind } from '../catalog.ts';
import type { ConnectorDeps } from '../deps.ts';
import type { AnyKind } from '../kit/contract.ts';
import { nextIncrementalAt, scheduleFor } from '../schedule.ts';
import { nextState } from '../states.ts';
import { applyTransition, type ConnectorRecord, getConnector, insertConnector, updateConnectorFields } from '../store.ts';

export const OAUTH_CALLBACK_PATH = '/v1/connectors/oauth/callback';
const STATE_TTL_MS = 10 * 60_000;
/** Tokens are refreshed when they expire within this window. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  refresh_token: z.string().optional(),
  expires_in: z.coerce.number().optional(),
  scope: z.string().optional(),
});
/** `fields`: what the kind's `oauth.tokenFields` keeps of the token answer (Salesforce's `instance_url`, Zoho's `api_domain`). */
export type OAuthTokens = { access_token: string; refresh_token?: string; scope?: string; fields?: Record<string, string> };

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

function oauthClient(deps: ConnectorDeps, type: string) {
  const kind = getKind(type);
  if (!kind?.oauth) throw Errors.unprocessable('oauth_unsupported', `'${type}' connectors do not use OAuth`);
  const client = deps.config.connectors.oauthClients[type];
  if (!client) {
    throw Errors.unprocessable('oauth_not_configured', `no OAuth client configured for '${type}': set ATRIUM_OAUTH_CLIENTS={"${type}":{"client_id":…,"client_secret":…}}`);
  }
  return {
    kind,
    oauth: kind.oauth,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    authorizeUrl: client.authorize_url ?? kind.oauth.authorizeUrl,
    tokenUrl: client.token_url ?? kind.oauth.tokenUrl,
    redirectUri: `${deps.config.publicUrl}${OAUTH_CALLBACK_PATH}`,
  };
}

/**
 * Throws 409 unless the connector is in a state the OAuth callback can move to `connected` (`connecting`,
 * `disconnected`, `error`): an authorization started elsewhere could not complete and would only leave tokens behind.
 */
export function assertCanAuthorize(connector: Pick<ConnectorRecord, 'id' | 'status' | 'pausedFrom'>): void {
  const outcome = nextState(connector.status, 'oauth_completed', connector.pausedFrom);
  if (!outcome.ok) throw Errors.conflict(`connector '${connector.id}' cannot be authorized now: ${outcome.reason}`, { status: connector.status });
}

/**
 * Builds the provider's authorization URL with a single-use, expiring state bound to tenant and connector (PKCE S256).
 * `status` (when given) is checked first with assertCanAuthorize.
 */
export async function createOAuthUrl(
  deps: ConnectorDeps,
  input: {
    tenantId: string;
    /** null: connect a new connector, created by the callback once the exchange succeeds. */
    connectorId: string | null;
    connectorType: string;
    connector?: Pick<ConnectorRecord, 'id' | 'status' | 'pausedFrom'>;
    /** For a new connector: its display name (default: from the vendor account) and who asked (for the audit log). */
    displayName?: string;
    actor?: { id: string; userId?: string | null };
  },
): Promise<{ url: string; state: string }> {
  const c = oauthClient(deps, input.connectorType);
  if (input.connector) assertCanAuthorize(input.connector);
  const state = randomBytes(32).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  await deps.db.query(
    `INSERT INTO connector_oauth_states (state_hash, tenant_id, connector_id, connector_type, code_verifier_enc, expires_at, display_name, actor_id, user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      hashState(state),
      input.tenantId,
      input.connectorId,
      input.connectorType,
      deps.secrets.seal(verifier),
      new Date(deps.clock.now().getTime() + STATE_TTL_MS).toISOString(),
      input.displayName ?? null,
      input.actor?.id ?? null,
      input.actor?.userId ?? null,
    ],
  );
  const url = new URL(c.authorizeUrl);
  url.searchParams.set('client_id', c.clientId);
  url.searchParams.set('redirect_uri', c.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', c.oauth.scopes.join(c.oauth.scopeSeparator ?? ' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  for (const [k, v] of Object.entries(c.oauth.extraAuthorizeParams ?? {})) url.searchParams.set(k, v);
  return { url: url.toString(), state };
}

async function tokenRequest(tokenUrl: string, params: Record<string, string>, clientId: string, clientSecret: string): Promise<z.infer<typeof tokenResponse>> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.error === 'string') {
    const err = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
    throw new OAuthTokenError(err, typeof body.error_description === 'string' ? body.error_description : undefined);
  }
  return tokenResponse.parse(body);
}

export class OAuthTokenError extends Error {
  override readonly name = 'OAuthTokenError';
  constructor(
    readonly code: string,
    readonly description?: string,
  ) {
    super(`token endpoint answered ${code}${description ? `: ${description}` : ''}`);
  }
}

async function storeTokens(
  deps: ConnectorDeps,
  db: Queryable,
  tenantId: string,
  connectorId: string,
  t: z.infer<typeof tokenResponse>,
  kind: AnyKind,
  previous?: OAuthTokens,
): Promise<void> {
  const fields: Record<string, string> = { ...previous?.fields };
  for (const name of kind.oauth?.tokenFields ?? []) {
    const v = (t as Record<string, unknown>)[name];
    if (typeof v === 'string' && v) fields[name] = v;
  }
  const tokens: OAuthTokens = {
    access_token: t.access_token,
    refresh_token: t.refresh_token ?? previous?.refresh_token,
    scope: t.scope ?? previous?.scope,
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
  };
  await updateConnectorFields(db, tenantId, connectorId, {
    oauthTokensEnc: deps.secrets.seal(JSON.stringify(tokens)),
    tokenExpiresAt: t.expires_in ? new Date(deps.clock.now().getTime() + t.expires_in * 1000) : null,
  });
}

/** `created`: the callback created the connector (oauth-url without a connector); `named`: a display name was asked for. */
export type OAuthCallbackOutcome = { ok: true; connectorId: string; tenantId: string; created: boolean; named: boolean } | { ok: false; reason: string };

/**
 * The callback: consumes the state (once, before expiry), checks the connector can still move to `connected`,
 * exchanges the code, then stores the sealed tokens and moves to `connected` in one transaction: a callback that
 * cannot complete changes nothing (no tokens left behind to override the connector's credentials).
 */
export async function completeOAuth(deps: ConnectorDeps, input: { state: string; code?: string; error?: string }): Promise<OAuthCallbackOutcome> {
  const r = await deps.db.query<Record<string, unknown>>(
    `UPDATE connector_oauth_states SET used_at = $2 WHERE state_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *`,
    [hashState(input.state), deps.clock.now().toISOString()],
  );
  const row = r.rows[0];
  if (!row) return { ok: false, reason: 'unknown, expired or already used OAuth state: start again from the oauth-url endpoint' };
  const tenantId = String(row.tenant_id);
  if (input.error || !input.code) return { ok: false, reason: `the provider refused the authorization: ${input.error ?? 'no code returned'}` };
  const c = oauthClient(deps, String(row.connector_type));
  const verifier = deps.secrets.open(String(row.code_verifier_enc));
  const exchange = async (): Promise<{ tokens: z.infer<typeof tokenResponse> } | { failed: string }> => {
    try {
      return { tokens: await tokenRequest(c.tokenUrl, { grant_type: 'authorization_code', code: input.code ?? '', redirect_uri: c.redirectUri, code_verifier: verifier }, c.clientId, c.clientSecret) };
    } catch (err) {
      // The vendor's error may echo the code, the verifier or the client secret: none of them is shown or stored.
      const secrets = secretStrings([input.code, c.clientSecret, verifier]);
      return { failed: maskSecrets(`token exchange failed: ${err instanceof Error ? err.message : String(err)}`, secrets) };
    }
  };
  if (row.connector_id === null || row.connector_id === undefined) {
    const exchanged = await exchange();
    if ('failed' in exchanged) return { ok: false, reason: exchanged.failed };
    const connectorId = await createConnectedConnector(deps, tenantId, c.kind, exchanged.tokens, {
      displayName: typeof row.display_name === 'string' ? row.display_name : null,
      actorId: typeof row.actor_id === 'string' ? row.actor_id : null,
      userId: typeof row.user_id === 'string' ? row.user_id : null,
    });
    return { ok: true, connectorId, tenantId, created: true, named: typeof row.display_name === 'string' };
  }
  const connectorId = String(row.connector_id);
  const before = await getConnector(deps.db, tenantId, connectorId);
  if (!before) return { ok: false, reason: `connector '${connectorId}' no longer exists` };
  const allowed = nextState(before.status, 'oauth_completed', before.pausedFrom);
  if (!allowed.ok) return { ok: false, reason: allowed.reason };
  const exchanged = await exchange();
  if ('failed' in exchanged) return { ok: false, reason: exchanged.failed };
  const { tokens } = exchanged;
  // The state may have changed during the exchange (a pause, say): then nothing is stored.
  const moved = await deps.db.transaction(async (tx) => {
    const m = await applyTransition(tx, tenantId, connectorId, 'oauth_completed');
    if (m.ok) await storeTokens(deps, tx, tenantId, connectorId, tokens, c.kind);
    return m;
  });
  if (!moved.ok) return { ok: false, reason: moved.reason };
  await recordAudit(deps.db, { tenantId, action: Ops.connectorOAuthCompleted, details: { connector_id: connectorId, connector_type: c.kind.type } });
  return { ok: true, connectorId, tenantId, created: false, named: true };
}

/**
 * The connector an oauth-url without a connector asked for, created once the exchange succeeded: `connected` with the
 * sealed tokens, default settings, and its first full sync due now (as a connector whose credentials validated).
 */
async function createConnectedConnector(
  deps: ConnectorDeps,
  tenantId: string,
  kind: AnyKind,
  tokens: z.infer<typeof tokenResponse>,
  who: { displayName: string | null; actorId: string | null; userId: string | null },
): Promise<string> {
  const now = deps.clock.now();
  const settings = {};
  const schedule = scheduleFor(settings, { intervalMinutes: deps.config.connectors.syncIntervalMinutes, fullAtUtc: deps.config.connectors.fullSyncAtUtc });
  const id = await deps.db.transaction(async (tx) => {
    const record = await insertConnector(tx, {
      id: newId(kind.type, '-'),
      tenantId,
      type: kind.type,
      displayName: who.displayName ?? kind.displayName,
      settings,
      credentialsEnc: null,
      webhookSecretEnc: kind.webhook ? deps.secrets.seal(randomBytes(32).toString('hex')) : null,
      nextIncrementalAt: kind.sync ? nextIncrementalAt(now, schedule) : null,
      nextFullAt: kind.sync ? now : null,
    });
    const moved = await applyTransition(tx, tenantId, record.id, 'oauth_completed');
    if (!moved.ok) throw new Error(`a new connector could not move to connected: ${moved.reason}`);
    await storeTokens(deps, tx, tenantId, record.id, tokens, kind);
    return record.id;
  });
  const details = { connector_id: id, connector_type: kind.type, display_name: who.displayName ?? kind.displayName, via: 'oauth' };
  await recordAudit(deps.db, { tenantId, action: Ops.connectorCreated, actorId: who.actorId ?? undefined, userId: who.userId ?? undefined, details });
  await recordAudit(deps.db, { tenantId, action: Ops.connectorOAuthCompleted, details: { connector_id: id, connector_type: kind.type } });
  return id;
}

/** The connector's OAuth tokens, refreshed first when they expire within REFRESH_MARGIN_MS. Null when it has none. */
export async function currentOAuthTokens(deps: ConnectorDeps, connector: ConnectorRecord, now: Date): Promise<OAuthTokens | null> {
  if (!connector.oauthTokensEnc) return null;
  const tokens = JSON.parse(deps.secrets.open(connector.oauthTokensEnc)) as OAuthTokens;
  const expiring = connector.tokenExpiresAt && connector.tokenExpiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS;
  if (!expiring) return tokens;
  if (!tokens.refresh_token) return tokens;
  const c = oauthClient(deps, connector.type);
  try {
    const fresh = await tokenRequest(c.tokenUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, c.clientId, c.clientSecret);
    await storeTokens(deps, deps.db, connector.tenantId, connector.id, fresh, c.kind, tokens);
    const updated = await getConnector(deps.db, connector.tenantId, connector.id);
    return updated?.oauthTokensEnc ? (JSON.parse(deps.secrets.open(updated.oauthTokensEnc)) as OAuthTokens) : null;
  } catch (err) {
    if (err instanceof OAuthTokenError && (err.code === 'invalid_grant' || err.code === 'unauthorized_client')) {
      await applyTransition(deps.db, connector.tenantId, connector.id, 'auth_revoked', {
        reason: 'the OAuth refresh token was rejected: reconnect the connector (GET /v1/connectors/{type}/oauth-url)',
      });
    }
    throw err;
  }
}
