import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, vendorJson } from '../kit/index.ts';
import type { TrelloCredentials, TrelloSettings } from './schemas.ts';

export type TrelloCtx = SourceContext<TrelloCredentials, TrelloSettings>;

export const TRELLO_API = 'https://api.trello.com';
const HINT_TOKEN = 'check the API key and the user token granted to it (read scope), and that the token has not expired or been revoked';
const HINT_OAUTH = 'reconnect with OAuth (the app needs read access to boards)';

/**
 * The credential header. API key + token travel in Trello's documented `Authorization: OAuth oauth_consumer_key=…,
 * oauth_token=…` header rather than the `key`/`token` query parameters, so they stay out of URLs and request logs;
 * an OAuth 2.0 token is a bearer token (OAuth wins: it is what the latest (re)connect stored).
 */
export function authHeaders(c: TrelloCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  if (c.api_key && c.token) return { authorization: `OAuth oauth_consumer_key="${c.api_key}", oauth_token="${c.token}"` };
  throw new VendorAuthError('no Trello credentials: supply credentials.api_key + credentials.token or connect with OAuth');
}

/** One Trello call: authorized, rate-limited, classified (Trello answers 401 with a plain-text reason such as "invalid token"). */
export function trelloJson<T>(ctx: TrelloCtx, path: string, query: Record<string, string | number | boolean | undefined | null> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? TRELLO_API, path), {
    vendor: 'Trello',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_TOKEN,
    headers: authHeaders(ctx.credentials),
    query,
    signal: ctx.signal,
  });
}

const me = z.object({ id: z.string(), username: z.string().nullable().optional(), fullName: z.string().nullable().optional(), email: z.string().nullable().optional() });
export type TrelloMe = z.infer<typeof me>;

/** The token's member (`GET /1/members/me`): the validation probe. */
export async function getMe(ctx: TrelloCtx): Promise<TrelloMe> {
  return me.parse(await trelloJson<unknown>(ctx, '/1/members/me', { fields: 'username,fullName,email' }));
}
