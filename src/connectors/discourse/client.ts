import { z } from 'zod';
import { checkResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { DiscourseCredentials, DiscourseSettings } from './schemas.ts';

export type DiscourseCtx = SourceContext<DiscourseCredentials, DiscourseSettings>;

const HINT = 'supply a valid Discourse API key (Admin → API → Keys) and the username it may act as (api_username)';

/** Query values; an array is sent as repeated `name[]=` parameters (Discourse's `post_ids[]`). */
export type DiscourseQuery = Record<string, string | number | boolean | undefined | null | readonly number[]>;

function url(ctx: DiscourseCtx, pathOrUrl: string, query: DiscourseQuery): string {
  // `more_topics_url` comes back as a path without `.json` ("/latest?page=1"): the Accept header picks the JSON answer.
  const u = new URL(joinUrl(ctx.apiBaseUrl ?? ctx.settings.site_url, pathOrUrl));
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) u.searchParams.append(`${k}[]`, String(item));
    else u.searchParams.set(k, String(v));
  }
  return u.toString();
}

const rateLimitBody = z.object({ error_type: z.string().optional(), extras: z.object({ wait_seconds: z.number().optional() }).optional() });

/**
 * A Discourse 429: `Retry-After` (sent since Discourse 2.0) and the body's `extras.wait_seconds`; the body's value is
 * used when the header is missing (older versions, proxies that drop it).
 */
async function rateLimited(res: Response): Promise<VendorRateLimitedError> {
  const header = Number(res.headers.get('retry-after'));
  let waitSeconds = Number.isFinite(header) && header > 0 ? header : null;
  const body = rateLimitBody.safeParse(await res.json().catch(() => ({})));
  if (waitSeconds === null && body.success) waitSeconds = body.data.extras?.wait_seconds ?? null;
  return new VendorRateLimitedError('Discourse rate limit (HTTP 429)', waitSeconds === null ? null : waitSeconds * 1000);
}

/**
 * One Discourse API call: `Api-Key` and `Api-Username` headers, JSON accepted, rate-limited and classified. A 404 (and,
 * with `missingOk`, a 403: a topic the user may no longer read) answers null instead of throwing.
 */
export async function discourseJson<T>(ctx: DiscourseCtx, pathOrUrl: string, opts: { query?: DiscourseQuery; missingOk?: boolean } = {}): Promise<T | null> {
  const res = await ctx.fetch(url(ctx, pathOrUrl, opts.query ?? {}), {
    headers: { 'Api-Key': ctx.credentials.api_key, 'Api-Username': ctx.credentials.api_username, accept: 'application/json' },
    signal: ctx.signal,
  });
  if (res.status === 429) throw await rateLimited(res);
  if (opts.missingOk && (res.status === 404 || res.status === 403 || res.status === 410)) {
    const text = await res.text().catch(() => '');
    // Discourse answers a revoked key with the same 403 `invalid_access` as a topic the user may not read: only the
    // message tells them apart, and a bad key must not turn every topic into a deletion.
    if (res.status === 403 && /API username or key is invalid/i.test(text)) {
      throw new VendorAuthError(`Discourse answered 403 (${text.replace(/\s+/g, ' ').trim().slice(0, 300)}): ${HINT}`);
    }
    return null;
  }
  await checkResponse(res, { vendor: 'Discourse', authHint: HINT });
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new VendorHttpError(`Discourse answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

/** Like `discourseJson`, for calls whose absence is an error. */
export async function discourseGet<T>(ctx: DiscourseCtx, pathOrUrl: string, query: DiscourseQuery = {}): Promise<T> {
  const r = await discourseJson<T>(ctx, pathOrUrl, { query });
  if (r === null) throw new VendorHttpError(`Discourse answered 404 for ${pathOrUrl}`, 404);
  return r;
}
