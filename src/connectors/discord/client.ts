import { abortableSleep, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { DiscordCredentials, DiscordSettings } from './schemas.ts';

export type DiscordCtx = SourceContext<DiscordCredentials, DiscordSettings>;

/** Discord's REST API, version 10 (discord.com/developers/docs/reference#api-versioning). */
export const DISCORD_API = 'https://discord.com/api/v10';
const HINT = 'supply a valid bot token (Developer Portal → Bot → Reset Token); a user or OAuth token cannot read channels';
/** A bucket that Discord says is spent is waited out before the next call, but never longer than this. */
const MAX_BUCKET_WAIT_MS = 60_000;

/**
 * How long to wait before the next request from a successful answer's rate-limit headers: Discord asks clients to
 * parse `X-RateLimit-Remaining` / `X-RateLimit-Reset-After` instead of hard-coding limits (topics/rate-limits).
 */
export function bucketWaitMs(header: (name: string) => string | null): number {
  if (header('x-ratelimit-remaining') !== '0') return 0;
  const after = Number(header('x-ratelimit-reset-after'));
  return Number.isFinite(after) && after > 0 ? Math.min(Math.ceil(after * 1000), MAX_BUCKET_WAIT_MS) : 0;
}

/**
 * The wait a 429 asks for: the body's `retry_after` (seconds, with decimals) is more precise than the `Retry-After`
 * header (whole seconds); either is honoured.
 */
export function retryAfterMs(body: unknown, header: string | null): number | null {
  const seconds = (body as { retry_after?: unknown } | null)?.retry_after;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  return parseRetryAfter(header, Date.now());
}

/** One GET on the Discord API as the bot: rate-limited, 429s and spent buckets honoured, errors classified. */
export async function discordGet<T>(ctx: DiscordCtx, path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  const url = new URL(joinUrl(ctx.apiBaseUrl ?? DISCORD_API, path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  const res = await ctx.fetch(url.toString(), {
    headers: { authorization: `Bot ${ctx.credentials.token}`, accept: 'application/json', 'user-agent': 'DiscordBot (https://github.com/atrium, 1.0)' },
    signal: ctx.signal,
  });
  if (res.status === 429) {
    const body = await res.json().catch(() => null);
    const global = (body as { global?: boolean } | null)?.global === true;
    throw new VendorRateLimitedError(`Discord rate limit (HTTP 429${global ? ', global' : ''})`, retryAfterMs(body, res.headers.get('retry-after')));
  }
  // 403 is Discord's "Missing Access" / "Missing Permissions" on one channel, not a rejected token (that is 401).
  await checkResponse(res, { vendor: 'Discord', authHint: HINT, forbiddenIsAuth: false });
  const text = await res.text();
  const wait = bucketWaitMs((name) => res.headers.get(name));
  if (wait > 0) await abortableSleep(wait, ctx.signal);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new VendorHttpError(`Discord answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}
