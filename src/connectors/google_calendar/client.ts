import type { z } from 'zod';
import { bearer, checkGoogleResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError } from '../kit/index.ts';
import type { CalendarCredentials, CalendarSettings } from './schemas.ts';

type Ctx = SourceContext<CalendarCredentials, CalendarSettings>;

export const CALENDAR_API = 'https://www.googleapis.com';
const VENDOR = 'Google Calendar';
export const AUTH_HINT = 'reconnect the connector with OAuth (scope https://www.googleapis.com/auth/calendar.readonly)';

/** 410 Gone on an incremental request: the sync token is no longer valid (expired, ACL changes); list the calendar again. */
export class SyncTokenGoneError extends VendorHttpError {
  constructor(message: string) {
    super(message, 410);
  }
}

/**
 * Classifies a Calendar answer (the kit's Google classification; guide "Handle API errors"). 429, and 403 whose reason is a quota → VendorRateLimitedError (Retry-After when sent);
 * 410 → SyncTokenGoneError; 401 and any other 403 (missing scope, revoked access) → VendorAuthError; 404 →
 * VendorHttpError 404 (callers decide: a configured calendar that does not exist); the rest as the kit classifies it.
 */
export async function checkCalendarResponse(res: Response, nowMs: number = Date.now()): Promise<Response> {
  return checkGoogleResponse(res, {
    vendor: VENDOR,
    authHint: AUTH_HINT,
    nowMs,
    alsoRead: [410],
    special: (e) => (e.status === 410 ? new SyncTokenGoneError(`${VENDOR} answered 410 ${e.reason}: ${e.message}`) : undefined),
  });
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
