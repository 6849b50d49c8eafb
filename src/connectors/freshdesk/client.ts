import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorFetch } from '../kit/index.ts';
import { type FreshdeskCredentials, type FreshdeskSettings, freshdeskHost } from './schemas.ts';

export type FreshdeskCtx = SourceContext<FreshdeskCredentials, FreshdeskSettings>;

const HINT_KEY = 'check the API key (Freshdesk → Profile settings → View API key) and that its agent can view tickets and solutions';
const HINT_OAUTH = 'reconnect with Freshworks OAuth, granting the ticket and solution view scopes';

function authHeaders(c: FreshdeskCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  // Freshdesk: the API key is the Basic user name; the password is ignored ("X" by convention).
  if (c.api_key) return { authorization: `Basic ${Buffer.from(`${c.api_key}:X`).toString('base64')}` };
  throw new VendorAuthError('no Freshdesk credentials: supply credentials.api_key or connect with OAuth');
}

export const apiBase = (ctx: FreshdeskCtx): string => ctx.apiBaseUrl ?? freshdeskHost(ctx.settings);

/** The `rel="next"` URL of a Link header, as a path + query on this connector's API base (proxies, the tests' fake). */
export function nextLink(link: string | null): string | null {
  const m = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
  if (!m?.[1]) return null;
  const u = new URL(m[1]);
  return `${u.pathname}${u.search}`;
}

/** One Freshdesk call: authorized, rate-limited, classified; the JSON body and the Link header's next page. */
export async function freshdeskGet<T>(ctx: FreshdeskCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<{ body: T; next: string | null }> {
  const res = await vendorFetch(ctx, joinUrl(apiBase(ctx), path), {
    ...req,
    vendor: 'Freshdesk',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_KEY,
    headers: { ...authHeaders(ctx.credentials), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
  return { body: (await res.json()) as T, next: nextLink(res.headers.get('link')) };
}

const me = z.object({ id: z.number(), contact: z.object({ name: z.string().nullable().optional(), email: z.string().nullable().optional() }).optional() });

/** The authenticated agent (`GET /api/v2/agents/me`). */
export async function getMe(ctx: FreshdeskCtx): Promise<z.infer<typeof me>> {
  return me.parse((await freshdeskGet<unknown>(ctx, '/api/v2/agents/me')).body);
}
