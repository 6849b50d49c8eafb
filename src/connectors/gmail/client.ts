import type { z } from 'zod';
import { bearer, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { GmailCredentials, GmailSettings } from './schemas.ts';

type Ctx = SourceContext<GmailCredentials, GmailSettings>;

export const GMAIL_API = 'https://gmail.googleapis.com';
const VENDOR = 'Gmail';
const AUTH_HINT = 'reconnect the connector with OAuth (scope https://www.googleapis.com/auth/gmail.readonly)';

/**
 * Google's quota answers: a 403 (or 429) whose reason is one of these is a rate limit, not a permission problem
 * (Gmail guide "Resolve errors": 403 dailyLimitExceeded / userRateLimitExceeded / rateLimitExceeded, 429 "Too many
 * concurrent requests for user" → exponential backoff). The same classification as the google_drive kind.
 */
const RATE_LIMIT_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'dailyLimitExceeded', 'quotaExceeded', 'RATE_LIMIT_EXCEEDED']);

/** The reasons of Google's error body: `error.errors[].reason` (JSON API style) and `error.details[].reason` (ErrorInfo). */
export function errorReasons(body: string): string[] {
  try {
    const e = (JSON.parse(body) as { error?: { errors?: { reason?: unknown }[]; details?: { reason?: unknown }[] } }).error;
    if (!e || typeof e !== 'object') return [];
    return [...(e.errors ?? []), ...(e.details ?? [])].map((x) => x?.reason).filter((r): r is string => typeof r === 'string');
  } catch {
    return [];
  }
}

function errorMessage(body: string): string {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof m === 'string' ? m : body.slice(0, 200);
  } catch {
    return body.replace(/\s+/g, ' ').trim().slice(0, 200);
  }
}

/**
 * Classifies a Gmail answer: 429 and a 403 with a quota reason → VendorRateLimitedError (Retry-After when sent);
 * 401 and any other 403 (missing scope, Gmail disabled for the account) → VendorAuthError; 404 → VendorHttpError 404
 * (an expired `startHistoryId`, a message deleted since it was listed: the sync decides); the rest as the kit does.
 */
export async function checkGmailResponse(res: Response, nowMs: number = Date.now()): Promise<Response> {
  if (res.ok) return res;
  if (res.status !== 401 && res.status !== 403 && res.status !== 404) return checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  const body = await res.text().catch(() => '');
  const reasons = errorReasons(body);
  const message = errorMessage(body);
  if (res.status === 403 && reasons.some((r) => RATE_LIMIT_REASONS.has(r))) {
    throw new VendorRateLimitedError(`${VENDOR} rate limit (HTTP 403 ${reasons.join(', ')})`, parseRetryAfter(res.headers.get('retry-after'), nowMs));
  }
  const reason = reasons[0] ?? (res.status === 404 ? 'notFound' : 'forbidden');
  if (res.status === 404) throw new VendorHttpError(`${VENDOR} answered HTTP 404 ${reason}: ${message}`, 404);
  throw new VendorAuthError(`${VENDOR} answered ${res.status} ${reason} (${message}): ${AUTH_HINT}`);
}

/** Query parameters; an array repeats the parameter (`historyTypes=a&historyTypes=b`, `labelIds=…`). */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

export function gmailUrl(base: string | undefined, path: string, query: Query): string {
  const u = new URL(joinUrl(base ?? GMAIL_API, path));
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v as readonly string[]) u.searchParams.append(k, x);
    else u.searchParams.set(k, String(v));
  }
  return u.toString();
}

/** A Gmail API v1 call (`path` under the API host, e.g. `/gmail/v1/users/me/profile`), parsed with `schema`. */
export async function gmailJson<T>(ctx: Ctx, path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
  if (!ctx.credentials.access_token) throw new VendorAuthError(`no ${VENDOR} access token: ${AUTH_HINT}`);
  const res = await ctx.fetch(gmailUrl(ctx.apiBaseUrl, path, query), { headers: { ...bearer(ctx.credentials.access_token), accept: 'application/json' }, signal: ctx.signal });
  await checkGmailResponse(res);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new VendorHttpError(`${VENDOR} answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new VendorHttpError(`${VENDOR} answered ${path} in an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`, res.status);
  return parsed.data;
}
