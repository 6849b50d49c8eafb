import { parseRetryAfter } from './limits.ts';

/** A vendor answered 429 (or its equivalent); the engine waits `retryAfterMs` or backs off. */
export class VendorRateLimitedError extends Error {
  override readonly name = 'VendorRateLimitedError';
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** The vendor rejected the credentials: retrying cannot help; the connector goes to `error` with this message. */
export class VendorAuthError extends Error {
  override readonly name: string = 'VendorAuthError';
}

/**
 * The connector's settings cannot work (e.g. a folder outside ATRIUM_FILESYSTEM_ROOTS): handled like a
 * credentials error (no retry, the connector goes to `error`), but reported as a settings problem.
 */
export class SourceSettingsError extends VendorAuthError {
  override readonly name: string = 'SourceSettingsError';
}

/** The user-facing message for a VendorAuthError: what is wrong and how to fix it. */
export function authErrorMessage(err: VendorAuthError): string {
  return err instanceof SourceSettingsError
    ? `the connector's settings are invalid: ${err.message}. Fix the settings and sync again.`
    : `the vendor rejected the credentials: ${err.message}. Supply valid credentials or reconnect with OAuth.`;
}

/** A vendor's 429 (or GitHub's exhausted-quota 403) as VendorRateLimitedError, else null. */
export function rateLimitFromResponse(status: number, header: (name: string) => string | null | undefined): VendorRateLimitedError | null {
  // GitHub answers an exhausted primary quota with 403 and x-ratelimit-remaining: 0, and a secondary rate limit
  // with 403 (or 429) and Retry-After.
  const exhausted = status === 403 && (header('x-ratelimit-remaining') === '0' || Boolean(header('retry-after')));
  if (status !== 429 && !exhausted) return null;
  // GitHub sends x-ratelimit-reset on every answer: it says when the quota refills, which matters only once it is
  // spent; a 429 with quota left (a secondary limit without Retry-After) backs off instead of waiting up to an hour.
  const reset = header('x-ratelimit-remaining') === '0' ? header('x-ratelimit-reset') : null;
  const retryAfter = parseRetryAfter(header('retry-after'), Date.now()) ?? (reset ? Math.max(0, Number(reset) * 1000 - Date.now()) : null);
  return new VendorRateLimitedError(`vendor rate limit (HTTP ${status})`, retryAfter);
}

/** Finds a vendor error in an error's cause chain (SDKs wrap what fetch throws). */
export function findVendorError(err: unknown): VendorRateLimitedError | VendorAuthError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof VendorRateLimitedError || e instanceof VendorAuthError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
}
