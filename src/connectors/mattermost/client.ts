import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { MattermostCredentials, MattermostSettings } from './schemas.ts';

export type MattermostCtx = SourceContext<MattermostCredentials, MattermostSettings>;

const HINT_TOKEN = 'check the personal access token (Profile → Security) and that personal access tokens are enabled on the server';
const HINT_OAUTH = 'reconnect with OAuth to the Mattermost server';

/** The server's base (`ATRIUM_CONNECTOR_API_URLS.mattermost` for proxies and tests, else `site_url`). */
export const apiBase = (ctx: MattermostCtx): string => ctx.apiBaseUrl ?? ctx.settings.site_url;

function token(c: MattermostCredentials): string {
  // OAuth wins when both are present: it is what the latest (re)connect stored.
  const t = c.access_token ?? c.token;
  if (!t) throw new VendorAuthError('no Mattermost credentials: supply credentials.token (a personal access token) or connect with OAuth');
  return t;
}

/** One call under `/api/v4` as Bearer, rate-limited and classified (401 → credentials; 403 is one channel's permission). */
export function mattermostGet<T>(ctx: MattermostCtx, path: string, query: VendorRequest['query'] = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), `/api/v4${path}`), {
    vendor: 'Mattermost',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_TOKEN,
    query,
    forbiddenIsAuth: false,
    headers: { ...bearer(token(ctx.credentials)), 'x-requested-with': 'XMLHttpRequest' },
    signal: ctx.signal,
  });
}

const me = z.object({ id: z.string(), username: z.string(), email: z.string().optional() });

/** `GET /api/v4/users/me`: who the token authenticates as. */
export async function getMe(ctx: MattermostCtx): Promise<z.infer<typeof me>> {
  return me.parse(await mattermostGet<unknown>(ctx, '/users/me'));
}

/** Every item of a `page`/`per_page` listing (stops at a short page). */
export async function allPages<T>(ctx: MattermostCtx, path: string, item: z.ZodType<T>, query: VendorRequest['query'] = {}, perPage = 200): Promise<T[]> {
  const out: T[] = [];
  for (let page = 0; ; page++) {
    const r = z.array(item).parse(await mattermostGet<unknown>(ctx, path, { ...query, page, per_page: perPage }));
    out.push(...r);
    if (r.length < perPage) return out;
  }
}
