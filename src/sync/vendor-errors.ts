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
