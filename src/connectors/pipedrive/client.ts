import { z } from 'zod';
import { bearer, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { PipedriveCredentials, PipedriveSettings } from './schemas.ts';

export type PipedriveCtx = SourceContext<PipedriveCredentials, PipedriveSettings>;

export const PIPEDRIVE_API = 'https://api.pipedrive.com';
const HINT_TOKEN = 'check the personal API token (Personal preferences → API) of an active user';
const HINT_OAUTH = 'reconnect with OAuth (the app needs read access to deals, contacts and activities)';

/** OAuth wins when both are present: the OAuth tokens are what the latest (re)connect stored. */
export const usesOAuth = (c: PipedriveCredentials): boolean => Boolean(c.access_token);

/** An https `api_domain` from the token answer (no path, query or credentials), else null. */
export function safeApiDomain(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash || (u.pathname !== '/' && u.pathname !== '')) return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * The API base: `ATRIUM_CONNECTOR_API_URLS.pipedrive` (proxies, the tests' fake) when set; with OAuth, the company's
 * `api_domain` from the token answer (Pipedrive requires OAuth calls there); with an API token, api.pipedrive.com.
 */
export function apiBase(ctx: Pick<PipedriveCtx, 'apiBaseUrl' | 'credentials'>): string {
  if (ctx.apiBaseUrl) return ctx.apiBaseUrl;
  if (usesOAuth(ctx.credentials)) return safeApiDomain(ctx.credentials.api_domain) ?? PIPEDRIVE_API;
  return PIPEDRIVE_API;
}

function authHeaders(c: PipedriveCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  // The header form keeps the token out of URLs (and so out of proxies' and our own request logs).
  if (c.api_token) return { 'x-api-token': c.api_token };
  throw new VendorAuthError('no Pipedrive credentials: supply credentials.api_token or connect with OAuth');
}

/**
 * How long a Pipedrive 429 asks to wait: `Retry-After`, else `x-ratelimit-reset` (seconds left in the 2-second burst
 * window — not an epoch, unlike GitHub's header of that name), else null (the kit's backoff).
 */
export function pipedriveRetryMs(header: (name: string) => string | null, now: number): number | null {
  const after = parseRetryAfter(header('retry-after'), now);
  if (after !== null) return after;
  const reset = Number(header('x-ratelimit-reset'));
  return header('x-ratelimit-reset') !== null && Number.isFinite(reset) && reset >= 0 && reset < 86_400 ? Math.round(reset * 1000) : null;
}

/** One Pipedrive call: authorized, rate-limited, classified (401/403 → credentials, 429 → its wait, else VendorHttpError). */
export async function pipedriveJson<T>(ctx: PipedriveCtx, path: string, query: Record<string, string | number | undefined | null> = {}): Promise<T> {
  const url = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const res = await ctx.fetch(url, { headers: { ...authHeaders(ctx.credentials), accept: 'application/json' }, signal: ctx.signal });
  if (res.status === 429) {
    await res.body?.cancel().catch(() => {});
    throw new VendorRateLimitedError('Pipedrive rate limit (HTTP 429)', pipedriveRetryMs((n) => res.headers.get(n), Date.now()));
  }
  await checkResponse(res, { vendor: 'Pipedrive', authHint: usesOAuth(ctx.credentials) ? HINT_OAUTH : HINT_TOKEN });
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new VendorHttpError(`Pipedrive answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

export const me = z.object({
  data: z.object({
    id: z.number(),
    name: z.string().optional(),
    email: z.string().optional(),
    company_id: z.number().optional(),
    company_name: z.string().optional(),
    company_domain: z.string().optional(),
  }),
});
export type PipedriveMe = z.infer<typeof me>['data'];

export async function getMe(ctx: PipedriveCtx): Promise<PipedriveMe> {
  return me.parse(await pipedriveJson<unknown>(ctx, '/api/v1/users/me')).data;
}
