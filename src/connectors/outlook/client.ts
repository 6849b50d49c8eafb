import type { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, vendorJson } from '../kit/index.ts';
import type { OutlookCredentials, OutlookSettings } from './schemas.ts';

type Ctx = SourceContext<OutlookCredentials, OutlookSettings>;

export const GRAPH_URL = 'https://graph.microsoft.com';
export const LOGIN_URL = 'https://login.microsoftonline.com';
const VENDOR = 'Microsoft Graph';
const AUTH_HINT = 'reconnect with OAuth, granting Mail.Read, offline_access and User.Read';

/** `<graph host>/v1.0`: the national cloud's host from settings, else the public Graph. */
export const graphApiBase = (settings: Pick<OutlookSettings, 'graph_url'>): string => `${settings.graph_url ?? GRAPH_URL}/v1.0`;

const baseOf = (ctx: Pick<Ctx, 'apiBaseUrl' | 'settings'>): string => (ctx.apiBaseUrl ?? graphApiBase(ctx.settings)).replace(/\/+$/, '');

/**
 * A link Graph handed out (`@odata.nextLink`, `@odata.deltaLink`) on the configured base: the bearer token only ever
 * goes to the host this connector was configured with (a proxy in ATRIUM_CONNECTOR_API_URLS still receives Graph's own
 * links, which name graph.microsoft.com).
 */
export function onBase(base: string, link: string): string {
  const b = new URL(base);
  const l = new URL(link, `${base}/`);
  if (l.origin === b.origin) return l.toString();
  return `${joinUrl(base, l.pathname.replace(/^\/v1\.0(?=\/)/, ''))}${l.search}`;
}

/** A path segment for a folder or message id (Outlook ids are base64 and may end in `=`). */
export const seg = (id: string): string => encodeURIComponent(id);

/**
 * Query strings as Graph documents them (`$select=subject,body`): the `$` and commas kept literal, values encoded.
 * Undefined values are left out.
 */
export function graphQuery(query: Record<string, string | number | undefined>): string {
  const parts = Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v)).replace(/%2C/gi, ',')}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/**
 * One Graph GET (a path on the base, or a Graph link), its JSON checked against `schema`. `prefer`: the `Prefer`
 * header (`outlook.body-content-type="text"`, `odata.maxpagesize=50`), sent again with every link of a round.
 */
export async function graphGet<T extends z.ZodType>(ctx: Ctx, pathOrLink: string, schema: T, prefer?: readonly string[]): Promise<z.infer<T>> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no Microsoft Graph token: connect the connector with OAuth');
  const base = baseOf(ctx);
  const url = /^https?:\/\//i.test(pathOrLink) ? onBase(base, pathOrLink) : joinUrl(base, pathOrLink);
  const headers: Record<string, string> = { ...bearer(token), ...(prefer && prefer.length > 0 ? { prefer: prefer.join(', ') } : {}) };
  const body = await vendorJson<unknown>(ctx, url, { vendor: VENDOR, authHint: AUTH_HINT, headers });
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${VENDOR} answered an unexpected shape for ${new URL(url).pathname}: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/**
 * A delta link Graph no longer honours: 410 Gone (mailbox maintenance or migration), or a 4xx naming
 * `syncStateNotFound` / `resyncRequired` / an invalid sync state (the token expired out of Exchange's cache).
 */
export function isExpiredDelta(err: unknown): boolean {
  if (!(err instanceof VendorHttpError)) return false;
  if (err.status === 410) return true;
  return err.status >= 400 && err.status < 500 && /syncStateNotFound|resyncRequired|SyncStateInvalid|InvalidSyncState/i.test(err.message);
}

/** The folder no longer exists (or no longer under this id). */
export const isNotFound = (err: unknown): boolean => err instanceof VendorHttpError && err.status === 404;
