import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, type VendorRequest, vendorFetch, vendorJson } from '../kit/index.ts';
import type { BitbucketCredentials, BitbucketSettings } from './schemas.ts';

export type BitbucketCtx = SourceContext<BitbucketCredentials, BitbucketSettings>;

export const BITBUCKET_API = 'https://api.bitbucket.org';

const HINT_BASIC = 'check the username and app password (or the email and API token) and that they may read repositories, pull requests, issues and the account';
const HINT_OAUTH = 'reconnect with OAuth, granting the repository pullrequest issue account scopes';

export const usesOAuth = (c: BitbucketCredentials): boolean => Boolean(c.access_token);

function authHeaders(c: BitbucketCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  const basic = (user: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });
  if (c.username && c.app_password) return basic(c.username, c.app_password);
  if (c.email && c.api_token) return basic(c.email, c.api_token);
  throw new VendorAuthError('no Bitbucket credentials: supply credentials.username + credentials.app_password (or email + api_token), or connect with OAuth');
}

export function apiBase(ctx: BitbucketCtx): string {
  return ctx.apiBaseUrl ?? BITBUCKET_API;
}

function request(ctx: BitbucketCtx, req: Omit<VendorRequest, 'vendor'>): VendorRequest {
  return {
    ...req,
    vendor: 'Bitbucket',
    authHint: usesOAuth(ctx.credentials) ? HINT_OAUTH : HINT_BASIC,
    // Bitbucket answers 403 for a repository or workspace the account may not read: not a credentials problem, except
    // on /2.0/user (the account scope missing).
    forbiddenIsAuth: req.forbiddenIsAuth ?? false,
    headers: { ...authHeaders(ctx.credentials), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  };
}

/**
 * One Bitbucket REST 2.0 call. `path` may be a `next` link (absolute); `params` are appended in order, so a key may
 * repeat (`state=OPEN&state=MERGED`).
 */
export function bitbucketJson<T>(ctx: BitbucketCtx, path: string, params: [string, string][] = [], req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  const url = new URL(joinUrl(apiBase(ctx), path));
  for (const [k, v] of params) url.searchParams.append(k, v);
  return vendorJson<T>(ctx, url.toString(), request(ctx, req));
}

/** A raw file from `/2.0/repositories/{ws}/{repo}/src/{commit or branch}/{path}`, or null when the path does not exist. */
export async function bitbucketFile(ctx: BitbucketCtx, path: string): Promise<string | null> {
  try {
    const res = await vendorFetch(ctx, joinUrl(apiBase(ctx), path), request(ctx, { headers: { accept: 'text/plain, */*' } }));
    return await res.text();
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

/** Follows a 404 into null (an object deleted, or a repository the account can no longer read). */
export async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
}

export const bitbucketUser = z.object({
  uuid: z.string().optional(),
  account_id: z.string().nullable().optional(),
  display_name: z.string().nullable().optional(),
  username: z.string().nullable().optional(),
  nickname: z.string().nullable().optional(),
});

export async function getUser(ctx: BitbucketCtx): Promise<z.infer<typeof bitbucketUser>> {
  return bitbucketUser.parse(await bitbucketJson<unknown>(ctx, '/2.0/user', [], { forbiddenIsAuth: true }));
}
