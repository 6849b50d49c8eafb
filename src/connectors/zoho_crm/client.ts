import { z } from 'zod';
import { joinUrl, rateLimitFromResponse, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { ZohoCredentials, ZohoSettings } from './schemas.ts';

export type ZohoCtx = SourceContext<ZohoCredentials, ZohoSettings>;

/** The US data centre, when the token answer named no `api_domain`. */
export const DEFAULT_API_DOMAIN = 'https://www.zohoapis.com';
const AUTH_HINT = 'reconnect with OAuth, granting ZohoCRM.modules.READ, ZohoCRM.users.READ and ZohoCRM.org.READ in the account\'s data centre';
const AUTH_CODES = new Set(['INVALID_TOKEN', 'AUTHENTICATION_FAILURE', 'OAUTH_SCOPE_MISMATCH', 'NO_PERMISSION', 'INVALID_OAUTHTOKEN']);

/** Where API calls go: `ATRIUM_CONNECTOR_API_URLS.zoho_crm` (proxies, tests), else the token answer's `api_domain`. */
export const apiBase = (ctx: ZohoCtx): string => ctx.apiBaseUrl ?? ctx.credentials.api_domain ?? DEFAULT_API_DOMAIN;

/**
 * The CRM web host of the account's data centre: settings.crm_url, else `https://www.zohoapis.<dc>` → `https://crm.zoho.<dc>`
 * (.com, .eu, .in, .com.au, .jp, .com.cn, .ca, .sa); an unrecognised API host falls back to crm.zoho.com.
 */
export function crmUrl(settings: Pick<ZohoSettings, 'crm_url'>, apiDomain: string | undefined): string {
  if (settings.crm_url) return settings.crm_url;
  const host = apiDomain ? new URL(apiDomain).hostname : 'www.zohoapis.com';
  const m = /^(?:www\.)?zohoapis\.(.+)$/.exec(host);
  return `https://crm.zoho.${m?.[1] ?? 'com'}`;
}

const errorBody = z.object({ code: z.string().optional(), message: z.string().optional(), status: z.string().optional() });

/** Zoho's `{code, details, message, status: "error"}`: INVALID_TOKEN / AUTHENTICATION_FAILURE → credentials, TOO_MANY_REQUESTS / 429 → rate limit. */
export function classifyError(status: number, text: string, header: (name: string) => string | null): Error {
  let e: z.infer<typeof errorBody> | null = null;
  try {
    const parsed = errorBody.safeParse(JSON.parse(text));
    e = parsed.success ? parsed.data : null;
  } catch {
    e = null;
  }
  const detail = e?.code ? `${e.code}: ${e.message ?? ''}` : text.replace(/\s+/g, ' ').trim().slice(0, 300);
  if (status === 429 || e?.code === 'TOO_MANY_REQUESTS') {
    const limited = rateLimitFromResponse(429, header);
    return new VendorRateLimitedError(`Zoho CRM rate limit (HTTP ${status}${e?.code ? `, ${e.code}` : ''})`, limited?.retryAfterMs ?? null);
  }
  if (status === 401 || status === 403 || (e?.code && AUTH_CODES.has(e.code))) return new VendorAuthError(`Zoho CRM answered ${status}${detail ? ` (${detail})` : ''}: ${AUTH_HINT}`);
  return new VendorHttpError(`Zoho CRM answered HTTP ${status}${detail ? `: ${detail}` : ''}`, status);
}

export interface ZohoAnswer<T> {
  /** null for 204 No Content and 304 Not Modified (nothing to list). */
  readonly body: T | null;
  /** Zoho's clock (HTTP Date header): the next If-Modified-Since. */
  readonly serverTime: string | null;
}

/** One authorized (`Authorization: Zoho-oauthtoken …`), rate-limited GET, classified like `classifyError`. */
export async function zohoGet<T>(ctx: ZohoCtx, path: string, opts: { query?: Record<string, string | number>; ifModifiedSince?: string | null } = {}): Promise<ZohoAnswer<T>> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no Zoho CRM credentials: connect with OAuth');
  const url = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { authorization: `Zoho-oauthtoken ${token}`, accept: 'application/json' };
  if (opts.ifModifiedSince) headers['if-modified-since'] = `${new Date(opts.ifModifiedSince).toISOString().slice(0, 19)}+00:00`;
  const res = await ctx.fetch(url.toString(), { headers, signal: ctx.signal });
  const date = res.headers.get('date');
  const at = date ? Date.parse(date) : Number.NaN;
  const serverTime = Number.isNaN(at) ? null : new Date(at).toISOString();
  if (res.status === 204 || res.status === 304) {
    await res.body?.cancel().catch(() => {});
    return { body: null, serverTime };
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw classifyError(res.status, text, (n) => res.headers.get(n));
  try {
    return { body: (text ? JSON.parse(text) : null) as T | null, serverTime };
  } catch {
    throw new VendorHttpError(`Zoho CRM answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

const currentUser = z.object({ users: z.array(z.object({ id: z.string(), full_name: z.string().optional(), email: z.string().optional() })).default([]) });

/** `GET /crm/v2/users?type=CurrentUser`: who the token acts as, and Zoho's clock. */
export async function getCurrentUser(ctx: ZohoCtx): Promise<{ user: { id: string; full_name?: string; email?: string } | null; serverTime: string | null }> {
  const r = await zohoGet<unknown>(ctx, '/crm/v2/users', { query: { type: 'CurrentUser' } });
  return { user: currentUser.parse(r.body ?? {}).users[0] ?? null, serverTime: r.serverTime };
}

export const listAnswer = z.object({
  data: z.array(z.record(z.string(), z.unknown())).default([]),
  info: z.object({ more_records: z.boolean().optional(), page: z.number().optional(), per_page: z.number().optional(), count: z.number().optional() }).optional(),
});
export type ListAnswer = z.infer<typeof listAnswer>;
