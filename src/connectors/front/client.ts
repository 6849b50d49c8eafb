import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import { FRONT_API, type FrontCredentials, type FrontSettings } from './schemas.ts';

export type FrontCtx = SourceContext<FrontCredentials, FrontSettings>;

const HINT_TOKEN = 'check the API token (Settings → Developers → API tokens) and that it has the Shared Resources scope with read access';
const HINT_OAUTH = 'reconnect with OAuth as a Front admin';

/** OAuth wins when both are present: the OAuth token is what the latest (re)connect stored. */
function token(c: FrontCredentials): string {
  const t = c.access_token ?? c.api_token;
  if (!t) throw new VendorAuthError('no Front credentials: supply credentials.api_token or connect with OAuth');
  return t;
}

export const apiBase = (ctx: FrontCtx): string => ctx.apiBaseUrl ?? FRONT_API;

/**
 * A `_pagination.next` link names the company's own API host (`https://<company>.api.frontapp.com/…?page_token=…`):
 * the same path and query are asked of this connector's API base, so a proxy or the tests' fake keeps answering.
 */
export function samePath(link: string): string {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
}

/** One Front Core API call (a path, or a `_pagination.next` path): Bearer, rate-limited, classified. */
export function frontJson<T>(ctx: FrontCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), path), {
    ...req,
    vendor: 'Front',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_TOKEN,
    headers: { ...bearer(token(ctx.credentials)), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

const identity = z.object({ id: z.string(), name: z.string().nullable().optional() });

/** `GET /me`: the company the token belongs to. */
export async function getMe(ctx: FrontCtx): Promise<{ id: string; name: string | null }> {
  const r = identity.parse(await frontJson<unknown>(ctx, '/me'));
  return { id: r.id, name: r.name ?? null };
}
