import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import { type ZendeskCredentials, type ZendeskSettings, zendeskHost } from './schemas.ts';

export type ZendeskCtx = SourceContext<ZendeskCredentials, ZendeskSettings>;

const HINT_TOKEN = 'check the email and API token (Admin Center → Apps and integrations → Zendesk API) and that token access is enabled';
const HINT_OAUTH = 'reconnect with OAuth, granting the read scope, as a Zendesk admin';

/** OAuth wins when both are present: the OAuth token is what the latest (re)connect stored. */
const usesOAuth = (c: ZendeskCredentials): boolean => Boolean(c.access_token);

function authHeaders(c: ZendeskCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  // Zendesk's API-token form of HTTP Basic: `{email}/token:{api_token}`.
  if (c.email && c.api_token) return { authorization: `Basic ${Buffer.from(`${c.email}/token:${c.api_token}`).toString('base64')}` };
  throw new VendorAuthError('no Zendesk credentials: supply credentials.email + credentials.api_token or connect with OAuth');
}

/** The API base: `ATRIUM_CONNECTOR_API_URLS.zendesk` (proxies, tests) or https://<subdomain>.zendesk.com. */
export const apiBase = (ctx: ZendeskCtx): string => ctx.apiBaseUrl ?? zendeskHost(ctx.settings);

/** One Zendesk API call (a path, or an absolute `next_page` / `links.next` URL): authorized, rate-limited, classified. */
export function zendeskJson<T>(ctx: ZendeskCtx, pathOrUrl: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), pathOrUrl), {
    ...req,
    vendor: 'Zendesk',
    authHint: usesOAuth(ctx.credentials) ? HINT_OAUTH : HINT_TOKEN,
    headers: { ...authHeaders(ctx.credentials), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

/**
 * Zendesk links (`next_page`, `links.next`) name the customer's host; the same path and query are asked of this
 * connector's API base, so a proxy or the tests' fake keeps answering.
 */
export function sameHostPath(link: string): string {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
}

const me = z.object({
  user: z.object({ id: z.number().nullable(), name: z.string().nullable().optional(), email: z.string().nullable().optional(), role: z.string().nullable().optional() }),
});

/**
 * The authenticated user (`GET /api/v2/users/me.json`). Zendesk answers an unauthenticated request with the anonymous
 * user (id null) rather than 401; the ticket export is for admins only.
 */
export async function getMe(ctx: ZendeskCtx): Promise<{ id: number; name: string | null; email: string | null; role: string | null }> {
  const r = me.parse(await zendeskJson<unknown>(ctx, '/api/v2/users/me.json'));
  if (r.user.id === null) throw new VendorAuthError(`Zendesk answered as an anonymous user: ${usesOAuth(ctx.credentials) ? HINT_OAUTH : HINT_TOKEN}`);
  return { id: r.user.id, name: r.user.name ?? null, email: r.user.email ?? null, role: r.user.role ?? null };
}
