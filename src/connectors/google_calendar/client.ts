import type { z } from 'zod';
import { bearer, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { CalendarCredentials, CalendarSettings } from './schemas.ts';

type Ctx = SourceContext<CalendarCredentials, CalendarSettings>;

export const CALENDAR_API = 'https://www.googleapis.com';
const VENDOR = 'Google Calendar';
export const AUTH_HINT = 'reconnect the connector with OAuth (scope https://www.googleapis.com/auth/calendar.readonly)';

/**
 * Google's quota answers: a 403 (or 429) whose reason is one of these is a rate limit, not a permission problem
 * (Calendar guide "Handle API errors": 403 userRateLimitExceeded / rateLimitExceeded, 429 rateLimitExceeded →
 * exponential backoff; "Usage limits": 403 or 429 usageLimits).
 */
const RATE_LIMIT_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'dailyLimitExceeded', 'quotaExceeded', 'RATE_LIMIT_EXCEEDED']);

/** 410 Gone on an incremental request: the sync token is no longer valid (expired, ACL changes); list the calendar again. */
export class SyncTokenGoneError extends VendorHttpError {
  constructor(message: string) {
    super(message, 410);
  }
}

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
 * Classifies a Calendar answer. 429, and 403 whose reason is a quota → VendorRateLimitedError (Retry-After when sent);
 * 410 → SyncTokenGoneError; 401 and any other 403 (missing scope, revoked access) → VendorAuthError; 404 →
 * VendorHttpError 404 (callers decide: a configured calendar that does not exist); the rest as the kit classifies it.
 */
export async function checkCalendarResponse(res: Response, nowMs: number = Date.now()): Promise<Response> {
  if (res.ok) return res;
  if (![401, 403, 404, 410].includes(res.status)) return checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  const body = await res.text().catch(() => '');
  const reasons = errorReasons(body);
  const message = errorMessage(body);
  if (res.status === 403 && reasons.some((r) => RATE_LIMIT_REASONS.has(r))) {
    throw new VendorRateLimitedError(`${VENDOR} rate limit (HTTP 403 ${reasons.join(', ')})`, parseRetryAfter(res.headers.get('retry-after'), nowMs));
  }
  const reason = reasons[0] ?? (res.status === 404 ? 'notFound' : res.status === 410 ? 'gone' : 'forbidden');
  if (res.status === 410) throw new SyncTokenGoneError(`${VENDOR} answered 410 ${reason}: ${message}`);
  if (res.status === 404) throw new VendorHttpError(`${VENDOR} answered HTTP 404 ${reason}: ${message}`, 404);
  throw new VendorAuthError(`${VENDOR} answered ${res.status} ${reason} (${message}): ${AUTH_HINT}`);
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** A Calendar v3 JSON call (`path` under the API host, e.g. `/calendar/v3/users/me/calendarList`), parsed with `schema`. */
export async function calendarJson<T>(ctx: Ctx, path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
  if (!ctx.credentials.access_token) throw new VendorAuthError(`no ${VENDOR} access token: ${AUTH_HINT}`);
  const u = new URL(joinUrl(ctx.apiBaseUrl ?? CALENDAR_API, path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
  const res = await checkCalendarResponse(
    await ctx.fetch(u.toString(), { headers: { ...bearer(ctx.credentials.access_token), accept: 'application/json' }, signal: ctx.signal }),
  );
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

/** The path of one calendar's resources (`/calendar/v3/calendars/{id}…`): ids hold `@` and `#`, so they are encoded. */
export const calendarPath = (calendarId: string, rest = '') => `/calendar/v3/calendars/${encodeURIComponent(calendarId)}${rest}`;
