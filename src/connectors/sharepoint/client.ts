import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { checkResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, vendorJson } from '../kit/index.ts';
import { appOnly, type SharepointCredentials, type SharepointSettings } from './schemas.ts';

type Ctx = SourceContext<SharepointCredentials, SharepointSettings>;

export const GRAPH_URL = 'https://graph.microsoft.com/v1.0';
export const LOGIN_URL = 'https://login.microsoftonline.com';
const VENDOR = 'Microsoft Graph';
const AUTH_HINT =
  'reconnect with OAuth (scopes Sites.Read.All Files.Read.All offline_access User.Read), or supply app-only credentials of an app granted the Sites.Read.All and Files.Read.All application permissions';

/** The Graph base for this connector, without a trailing slash. */
export function graphBase(ctx: Pick<Ctx, 'apiBaseUrl'>): string {
  return (ctx.apiBaseUrl ?? GRAPH_URL).replace(/\/+$/, '');
}

/**
 * A link Graph handed out (`@odata.nextLink`, `@odata.deltaLink`, a 410's `Location`) on the configured base: the bearer
 * token only ever goes to the host this connector was configured with (a proxy in ATRIUM_CONNECTOR_API_URLS still
 * receives Graph's own links, which name graph.microsoft.com).
 */
export function onBase(base: string, link: string): string {
  const b = new URL(base);
  const l = new URL(link, `${base}/`);
  if (l.origin === b.origin) return l.toString();
  return `${joinUrl(base, l.pathname.replace(/^\/v1\.0(?=\/)/, ''))}${l.search}`;
}

const appTokens = new Map<string, { token: string; expiresAt: number }>();

/**
 * An app-only Graph token from the client credentials grant (Microsoft identity platform v2, scope
 * `https://graph.microsoft.com/.default`), cached until five minutes before it expires.
 */
async function appToken(ctx: Ctx, creds: { tenant_id: string; client_id: string; client_secret: string }, nowMs: number): Promise<string> {
  const authority = (ctx.settings.authority_url ?? LOGIN_URL).replace(/\/+$/, '');
  const key = [authority, creds.tenant_id, creds.client_id, createHash('sha256').update(creds.client_secret).digest('hex')].join('|');
  const cached = appTokens.get(key);
  if (cached && cached.expiresAt - 5 * 60_000 > nowMs) return cached.token;
  const scope = `${new URL(ctx.settings.graph_url ?? GRAPH_URL).origin}/.default`;
  const res = await ctx.fetch(`${authority}/${encodeURIComponent(creds.tenant_id)}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret, scope }),
  });
  if (res.status === 400 || res.status === 401) {
    // AADSTS errors: invalid_client (wrong secret), unauthorized_client, invalid_request (unknown tenant)…
    const body = (await res.json().catch(() => ({}))) as { error?: string; error_description?: string };
    const why = (body.error_description ?? '').split(/\r?\n/)[0]?.slice(0, 300);
    throw new VendorAuthError(`the Microsoft identity platform refused the app credentials (${body.error ?? `HTTP ${res.status}`}${why ? `: ${why}` : ''}): check tenant_id, client_id and client_secret`);
  }
  await checkResponse(res, { vendor: 'Microsoft identity platform' });
  const t = (await res.json()) as { access_token?: string; expires_in?: number };
  if (!t.access_token) throw new Error('the Microsoft identity platform answered without an access_token');
  appTokens.set(key, { token: t.access_token, expiresAt: nowMs + (t.expires_in ?? 3600) * 1000 });
  return t.access_token;
}

/** `Authorization` for Graph: the delegated OAuth token, else an app-only token. */
export async function authorization(ctx: Ctx, nowMs = Date.now()): Promise<string> {
  const c = ctx.credentials;
  if (c.access_token) return `Bearer ${c.access_token}`;
  if (appOnly(c)) return `Bearer ${await appToken(ctx, c, nowMs)}`;
  throw new VendorAuthError('no Microsoft Graph credentials: connect with OAuth, or supply tenant_id, client_id and client_secret');
}

/**
 * One Graph GET (a path on the base, or a Graph link), its JSON checked against `schema`. `forbiddenIsAuth: false`:
 * a 403 is a VendorHttpError (a permission this one call lacks), not rejected credentials.
 */
export async function graphGet<T extends z.ZodType>(ctx: Ctx, pathOrLink: string, schema: T, query?: Record<string, string | number>, opts: { forbiddenIsAuth?: boolean } = {}): Promise<z.infer<T>> {
  const base = graphBase(ctx);
  const url = /^https?:\/\//.test(pathOrLink) ? onBase(base, pathOrLink) : joinUrl(base, pathOrLink);
  const body = await vendorJson<unknown>(ctx, url, { vendor: VENDOR, authHint: AUTH_HINT, query, headers: { authorization: await authorization(ctx) }, ...opts });
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${VENDOR} answered an unexpected shape for ${new URL(url).pathname}: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

export type DeltaAnswer = { kind: 'page'; body: unknown } | { kind: 'resync'; location: string | null } | { kind: 'gone' };

/**
 * One delta request. Graph answers an expired or invalid token with 410 Gone and a `Location` that starts a fresh
 * enumeration (resyncChangesApplyDifferences / resyncChangesUploadDifferences); a drive that no longer exists with 404.
 */
export async function deltaRequest(ctx: Ctx, url: string): Promise<DeltaAnswer> {
  const res = await ctx.fetch(onBase(graphBase(ctx), url), { headers: { authorization: await authorization(ctx), accept: 'application/json' } });
  if (res.status === 410 || res.status === 404) {
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => {});
    return res.status === 404 ? { kind: 'gone' } : { kind: 'resync', location };
  }
  await checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  return { kind: 'page', body: await res.json() };
}

/**
 * A file's bytes: GET …/items/{id}/content answers 302 to a short-lived pre-authenticated download URL, which is
 * fetched without the Graph token (it needs none, and it is another host). A refused download URL (expired, 401/403)
 * or a vanished item (404) is a VendorHttpError that is not transient: the caller skips that file this time.
 */
export async function downloadItem(ctx: Ctx, driveId: string, itemId: string): Promise<Uint8Array> {
  const url = joinUrl(graphBase(ctx), `/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(itemId)}/content`);
  const res = await ctx.fetch(url, { headers: { authorization: await authorization(ctx) }, redirect: 'manual' });
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => {});
    if (!location) throw new VendorHttpError(`${VENDOR} answered ${res.status} without a Location for item ${itemId}`, 502);
    const dl = await ctx.fetch(new URL(location, url).toString());
    if (dl.status === 401 || dl.status === 403) {
      await dl.body?.cancel().catch(() => {});
      throw new VendorHttpError(`the download URL of item ${itemId} was refused (HTTP ${dl.status})`, dl.status);
    }
    await checkResponse(dl, { vendor: 'SharePoint download', forbiddenIsAuth: false });
    return new Uint8Array(await dl.arrayBuffer());
  }
  await checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  return new Uint8Array(await res.arrayBuffer());
}
