import { VendorAuthError, VendorRateLimitedError } from './errors.ts';
import { checkResponse, VendorHttpError } from './http.ts';
import { parseRetryAfter } from './limits.ts';

/**
 * Google's error answers, classified once for every Google API kind (google_drive, gmail, google_calendar).
 * Google answers quota exhaustion as 429, or as 403 whose `usageLimits` reason is one of these ("Resolve errors" /
 * "Handle API errors" guides of Drive, Gmail and Calendar: 403 userRateLimitExceeded / rateLimitExceeded /
 * dailyLimitExceeded → exponential backoff): a rate limit, not a permission problem.
 */
export const GOOGLE_RATE_LIMIT_REASONS: ReadonlySet<string> = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'dailyLimitExceeded', 'quotaExceeded', 'RATE_LIMIT_EXCEEDED']);

/** The reasons of Google's error body: `error.errors[].reason` (JSON API style) and `error.details[].reason` (ErrorInfo). */
export function googleErrorReasons(body: string): string[] {
  try {
    const e = (JSON.parse(body) as { error?: { errors?: { reason?: unknown }[]; details?: { reason?: unknown }[] } }).error;
    if (!e || typeof e !== 'object') return [];
    return [...(e.errors ?? []), ...(e.details ?? [])].map((x) => x?.reason).filter((r): r is string => typeof r === 'string');
  } catch {
    return [];
  }
}

/** `error.message` of Google's error body, else a short excerpt of the body. */
function googleErrorMessage(body: string): string {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof m === 'string' ? m : body.slice(0, 200);
  } catch {
    return body.replace(/\s+/g, ' ').trim().slice(0, 200);
  }
}

/** A Google error answer, read: its status, the reasons of its body (the first, or one named after the status), its message. */
export interface GoogleError {
  readonly status: number;
  readonly reasons: readonly string[];
  readonly reason: string;
  readonly message: string;
}

export interface GoogleCheck {
  /** The vendor's name, for messages ("Gmail answered 401 …"). */
  readonly vendor: string;
  /** What to do about rejected credentials (which OAuth scope), appended to the message. */
  readonly authHint: string;
  /** Statuses besides 401, 403 and 404 whose body is read and handed to `special` (e.g. Calendar's 410). */
  readonly alsoRead?: readonly number[];
  /** 403 reasons besides GOOGLE_RATE_LIMIT_REASONS that are rate limits for this API. */
  readonly moreRateLimitReasons?: readonly string[];
  /** The kind's own errors (a per-file 403, a gone sync token): return one to throw it, or undefined for the default. */
  readonly special?: (e: GoogleError) => Error | undefined;
  readonly nowMs?: number;
}

const DEFAULT_REASON: Record<number, string> = { 404: 'notFound', 410: 'gone' };

/**
 * Classifies a Google API answer: 429, and a 403 whose reason is a quota → VendorRateLimitedError (Retry-After when
 * sent); then the kind's `special` errors; 404 → VendorHttpError 404 (callers decide); 401 and any other 403
 * (missing scope, revoked access) → VendorAuthError; other statuses as the kit's checkResponse classifies them.
 */
export async function checkGoogleResponse(res: Response, check: GoogleCheck): Promise<Response> {
  if (res.ok) return res;
  const { vendor, authHint } = check;
  if (res.status !== 401 && res.status !== 403 && res.status !== 404 && !check.alsoRead?.includes(res.status)) return checkResponse(res, { vendor, authHint });
  const body = await res.text().catch(() => '');
  const reasons = googleErrorReasons(body);
  const message = googleErrorMessage(body);
  if (res.status === 403 && reasons.some((r) => GOOGLE_RATE_LIMIT_REASONS.has(r) || check.moreRateLimitReasons?.includes(r))) {
    throw new VendorRateLimitedError(`${vendor} rate limit (HTTP 403 ${reasons.join(', ')})`, parseRetryAfter(res.headers.get('retry-after'), check.nowMs ?? Date.now()));
  }
  const reason = reasons[0] ?? DEFAULT_REASON[res.status] ?? 'forbidden';
  const own = check.special?.({ status: res.status, reasons, reason, message });
  if (own) throw own;
  if (res.status === 404) throw new VendorHttpError(`${vendor} answered HTTP 404 ${reason}: ${message}`, 404);
  throw new VendorAuthError(`${vendor} answered ${res.status} ${reason} (${message}): ${authHint}`);
}
