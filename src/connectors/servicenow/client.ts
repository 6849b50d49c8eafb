import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorFetch } from '../kit/index.ts';
import type { ServicenowCredentials, ServicenowSettings } from './schemas.ts';

export type ServicenowCtx = SourceContext<ServicenowCredentials, ServicenowSettings>;

const HINT_BASIC = 'check the integration user\'s name and password (and that it is not locked out or restricted to the web UI)';
const HINT_OAUTH = 'reconnect with OAuth (System OAuth → Application Registry on the instance)';

function authHeaders(c: ServicenowCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  if (c.username && c.password) return { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` };
  throw new VendorAuthError('no ServiceNow credentials: supply credentials.username + credentials.password or connect with OAuth');
}

/** The API base: `ATRIUM_CONNECTOR_API_URLS.servicenow` (proxies, tests) or the instance URL. */
export const apiBase = (ctx: ServicenowCtx): string => ctx.apiBaseUrl ?? ctx.settings.instance_url;

/** The `rel="next"` target of a Link header, as a path on this connector's base (ServiceNow links name the instance). */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (m?.[1]) {
      const u = new URL(m[1]);
      return `${u.pathname}${u.search}`;
    }
  }
  return null;
}

/**
 * One Table API call (a path with its query, or a Link path): authorized, rate-limited, classified. Answers the parsed
 * body and the Link header's next page.
 */
export async function tableGet(ctx: ServicenowCtx, path: string, query?: VendorRequest['query'], opts: { forbiddenIsAuth?: boolean } = {}): Promise<{ body: unknown; next: string | null }> {
  const res = await vendorFetch(ctx, joinUrl(apiBase(ctx), path), {
    vendor: 'ServiceNow',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_BASIC,
    headers: authHeaders(ctx.credentials),
    signal: ctx.signal,
    ...(query ? { query } : {}),
    forbiddenIsAuth: opts.forbiddenIsAuth ?? true,
  });
  const text = await res.text();
  return { body: text ? (JSON.parse(text) as unknown) : undefined, next: nextLink(res.headers.get('link')) };
}
