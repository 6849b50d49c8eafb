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
  override readonly name = 'VendorAuthError';
}

/** A vendor's 429 (or GitHub's exhausted-quota 403) as VendorRateLimitedError, else null. */
export function rateLimitFromResponse(status: number, header: (name: string) => string | null | undefined): VendorRateLimitedError | null {
  const exhausted = status === 403 && header('x-ratelimit-remaining') === '0';
  if (status !== 429 && !exhausted) return null;
  const reset = header('x-ratelimit-reset');
  const retryAfter = parseRetryAfter(header('retry-after'), Date.now()) ?? (reset ? Math.max(0, Number(reset) * 1000 - Date.now()) : null);
  return new VendorRateLimitedError(`vendor rate limit (HTTP ${status})`, retryAfter);
}
