import { z } from 'zod';
import { joinUrl, type SourceContext, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { ZulipCredentials, ZulipSettings } from './schemas.ts';

export type ZulipCtx = SourceContext<ZulipCredentials, ZulipSettings>;

const HINT = "check the email and API key (Personal settings → Account & privacy → API key) and that the account isn't deactivated";

/** The server's base (`ATRIUM_CONNECTOR_API_URLS.zulip` for proxies and tests, else `site_url`). */
export const apiBase = (ctx: ZulipCtx): string => ctx.apiBaseUrl ?? ctx.settings.site_url;

/**
 * One Zulip API call under `/api/v1`: HTTP Basic `email:api_key`, rate-limited; a 429 (`RATE_LIMIT_HIT`, with
 * `Retry-After`) and 401 (`UNAUTHORIZED`, `INVALID_API_KEY`, `USER_DEACTIVATED`) are classified by the kit.
 */
export function zulipGet<T>(ctx: ZulipCtx, path: string, query: VendorRequest['query'] = {}): Promise<T> {
  const basic = Buffer.from(`${ctx.credentials.email}:${ctx.credentials.api_key}`).toString('base64');
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), `/api/v1${path}`), {
    vendor: 'Zulip',
    authHint: HINT,
    query,
    // 403 is a channel or message the account may not read, not a bad key (that is 401).
    forbiddenIsAuth: false,
    headers: { authorization: `Basic ${basic}`, 'user-agent': 'Atrium/1.0' },
    signal: ctx.signal,
  });
}

const me = z.object({ user_id: z.number(), email: z.string(), full_name: z.string(), is_bot: z.boolean().optional() });

/** `GET /api/v1/users/me`: who the key authenticates as. */
export async function getMe(ctx: ZulipCtx): Promise<z.infer<typeof me>> {
  return me.parse(await zulipGet<unknown>(ctx, '/users/me'));
}
