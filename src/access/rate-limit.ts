/**
 * Token bucket per key: `burst` tokens, refilled at `perMinute / 60` per second. In-process;
 * every API process keeps its own buckets (documented: N processes allow N × the rate).
 */
export interface RateLimiter {
  /** Takes one token; returns 0 when allowed, else the seconds until a token is available. */
  take(key: string, now: number): number;
}

export function createTokenBucketLimiter(opts: { perMinute: number; burst: number; maxKeys?: number }): RateLimiter {
  const ratePerMs = opts.perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxKeys = opts.maxKeys ?? 100_000;
  return {
    take(key, now) {
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) buckets.clear();
        b = { tokens: opts.burst, at: now };
        buckets.set(key, b);
      }
      b.tokens = Math.min(opts.burst, b.tokens + (now - b.at) * ratePerMs);
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / ratePerMs / 1000));
    },
  };
}
