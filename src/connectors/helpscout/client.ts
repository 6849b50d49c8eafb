import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  bearer,
  checkResponse,
  joinUrl,
  parseRetryAfter,
  type SourceContext,
  VendorAuthError,
  VendorRateLimitedError,
  type VendorRequest,
  vendorJson,
} from '../kit/index.ts';
import { DOCS_API, type HelpscoutCredentials, type HelpscoutSettings, MAILBOX_API } from './schemas.ts';

export type HelpscoutCtx = SourceContext<HelpscoutCredentials, HelpscoutSettings>;

const HINT_APP = 'check the App ID and App Secret (Your Profile → My Apps) or reconnect with OAuth';
const HINT_OAUTH = 'reconnect with OAuth';
const HINT_DOCS = 'check credentials.docs_api_key (Your Profile → Authentication → API Keys) or remove it to skip Docs';

/** `ATRIUM_CONNECTOR_API_URLS.helpscout` serves both APIs (their paths differ: /v2 Mailbox, /v1 Docs). */
const mailboxBase = (ctx: HelpscoutCtx): string => ctx.apiBaseUrl ?? MAILBOX_API;
const docsBase = (ctx: HelpscoutCtx): string => ctx.apiBaseUrl ?? DOCS_API;

/** Client-credentials tokens (valid two days) per connector, in this process; asked again when they expire or are refused. */
const appTokens = new Map<string, { token: string; expiresAt: number }>();

const tokenAnswer = z.object({ access_token: z.string(), expires_in: z.number().optional() });

async function appToken(ctx: HelpscoutCtx, fresh: boolean): Promise<string> {
  // Keyed by the app credentials too: replaced credentials never reuse the old app's token.
  const key = createHash('sha256').update(`${ctx.connectorId}\n${ctx.credentials.client_id}\n${ctx.credentials.client_secret}`).digest('hex');
  const cached = appTokens.get(key);
  if (!fresh && cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: ctx.credentials.client_id ?? '', client_secret: ctx.credentials.client_secret ?? '' });
  const r = tokenAnswer.parse(
    await vendorJson<unknown>(ctx, joinUrl(mailboxBase(ctx), '/v2/oauth2/token'), {
      vendor: 'Help Scout',
      authHint: HINT_APP,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal: ctx.signal,
      // The token endpoint answers a wrong App Secret with 400/401 `invalid_client`.
      forbiddenIsAuth: true,
    }).catch((err: unknown) => {
      if (err instanceof Error && /HTTP 400/.test(err.message)) throw new VendorAuthError(`Help Scout refused the app credentials (${err.message}): ${HINT_APP}`);
      throw err;
    }),
  );
  appTokens.set(key, { token: r.access_token, expiresAt: Date.now() + (r.expires_in ?? 7200) * 1000 });
  return r.access_token;
}

/**
 * Help Scout's 429 names its wait in `X-RateLimit-Retry-After` (seconds), not `Retry-After`: read it here, then the
 * kit classifies the rest.
 */
async function classify(res: Response, req: Pick<VendorRequest, 'vendor' | 'authHint'>): Promise<unknown> {
  if (res.status === 429) {
    await res.body?.cancel().catch(() => {});
    const wait = parseRetryAfter(res.headers.get('x-ratelimit-retry-after') ?? res.headers.get('retry-after'), Date.now());
    throw new VendorRateLimitedError(`${req.vendor} rate limit (HTTP 429)`, wait);
  }
  await checkResponse(res, req);
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

/** One Mailbox API 2.0 call: a path (or a HAL `next` href) with Bearer auth; a refused app token is renewed once. */
export async function mailboxJson<T>(ctx: HelpscoutCtx, pathOrUrl: string, query?: Record<string, string | number | undefined>): Promise<T> {
  const url = new URL(joinUrl(mailboxBase(ctx), sameHostPath(pathOrUrl)));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const usesApp = !ctx.credentials.access_token && Boolean(ctx.credentials.client_id && ctx.credentials.client_secret);
  const req = { vendor: 'Help Scout', authHint: usesApp ? HINT_APP : HINT_OAUTH };
  for (let attempt = 0; ; attempt++) {
    let token = ctx.credentials.access_token;
    if (!token && usesApp) token = await appToken(ctx, attempt > 0);
    if (!token) throw new VendorAuthError('no Help Scout credentials: supply credentials.client_id + client_secret or connect with OAuth');
    const res = await ctx.fetch(url.toString(), { headers: { ...bearer(token), accept: 'application/hal+json, application/json' }, signal: ctx.signal });
    if (res.status === 401 && usesApp && attempt === 0) {
      await res.body?.cancel().catch(() => {});
      continue;
    }
    return (await classify(res, req)) as T;
  }
}

/** One Docs API v1 call with the Docs API key as HTTP Basic `key:X`. */
export async function docsJson<T>(ctx: HelpscoutCtx, path: string, query?: Record<string, string | number | undefined>): Promise<T> {
  const key = ctx.credentials.docs_api_key;
  if (!key) throw new VendorAuthError('no Help Scout Docs API key: supply credentials.docs_api_key or set include_articles to false');
  const url = new URL(joinUrl(docsBase(ctx), path));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const res = await ctx.fetch(url.toString(), { headers: { authorization: `Basic ${Buffer.from(`${key}:X`).toString('base64')}`, accept: 'application/json' }, signal: ctx.signal });
  return (await classify(res, { vendor: 'Help Scout Docs', authHint: HINT_DOCS })) as T;
}

/** HAL `next` hrefs name api.helpscout.net; the same path and query are asked of this connector's base. */
export function sameHostPath(link: string): string {
  if (!/^https?:\/\//.test(link)) return link;
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
}

const me = z.object({ id: z.number(), firstName: z.string().nullable().optional(), lastName: z.string().nullable().optional(), email: z.string().nullable().optional() });

/** `GET /v2/users/me`: the user the token acts as (for the client credentials flow, the app's owner). */
export async function getMe(ctx: HelpscoutCtx): Promise<z.infer<typeof me>> {
  return me.parse(await mailboxJson<unknown>(ctx, '/v2/users/me'));
}
