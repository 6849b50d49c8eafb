import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { ClickUpCredentials, ClickUpSettings } from './schemas.ts';

export type ClickUpCtx = SourceContext<ClickUpCredentials, ClickUpSettings>;

/** API v2 lives under /api/v2, Docs under /api/v3 of the same host. */
export const CLICKUP_API = 'https://api.clickup.com';
const HINT_TOKEN = 'check the personal API token (pk_…, Settings → Apps) of a member of the Workspace';
const HINT_OAUTH = 'reconnect with OAuth and authorize the Workspaces to sync';

/**
 * OAuth wins when both are present (what the latest (re)connect stored). A personal token goes bare in
 * `Authorization`, an OAuth token as `Bearer` (developer.clickup.com/docs/authentication).
 */
function authHeaders(c: ClickUpCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  if (c.api_token) return { authorization: c.api_token };
  throw new VendorAuthError('no ClickUp credentials: supply credentials.api_token or connect with OAuth');
}

/**
 * One ClickUp call: authorized, rate-limited, classified by the kit (401 `{err, ECODE: OAUTH_…}` → credentials;
 * 429 → waits until `X-RateLimit-Reset`, a Unix time, which the kit reads when `X-RateLimit-Remaining` is 0).
 */
export function clickupJson<T>(ctx: ClickUpCtx, path: string, query?: VendorRequest['query']): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? CLICKUP_API, path), {
    vendor: 'ClickUp',
    authHint: ctx.credentials.access_token ? HINT_OAUTH : HINT_TOKEN,
    headers: authHeaders(ctx.credentials),
    ...(query ? { query } : {}),
    signal: ctx.signal,
  });
}

const userShape = z.object({ id: z.union([z.number(), z.string()]).transform(String), username: z.string().nullish(), email: z.string().nullish() });
export type ClickUpUser = z.infer<typeof userShape>;
export const clickupUser = userShape;

export async function getUser(ctx: ClickUpCtx): Promise<ClickUpUser> {
  return z.object({ user: userShape }).parse(await clickupJson<unknown>(ctx, '/api/v2/user')).user;
}

export const teamsAnswer = z.object({
  teams: z.array(
    z.object({
      id: z.union([z.number(), z.string()]).transform(String),
      name: z.string(),
      members: z.array(z.object({ user: userShape })).default([]),
    }),
  ),
});
export type ClickUpTeam = z.infer<typeof teamsAnswer>['teams'][number];
