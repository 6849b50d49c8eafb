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

/**
 * Failed authentication attempts per client (its address): `perMinute` failures allowed in a burst, then one
 * more each `60 / perMinute` s. While a client is over, every credential it presents is refused with 429 before
 * it is checked, so guessing keys costs time whatever the guesses.
 */
export interface FailureThrottle {
  /** Seconds until `client` may present a credential again; 0 = now. */
  blockedFor(client: string, now: number): number;
  /** Records a failed attempt: the seconds `client` is now blocked for (0 = not blocked) and whether this one started the block. */
  fail(client: string, now: number): { readonly retryAfter: number; readonly started: boolean };
}

export function createFailureThrottle(opts: { perMinute: number; maxClients?: number }): FailureThrottle {
  const ratePerMs = opts.perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxClients = opts.maxClients ?? 100_000;
  const refill = (client: string, now: number) => {
    const b = buckets.get(client);
    if (!b) return null;
    b.tokens = Math.min(opts.perMinute, b.tokens + (now - b.at) * ratePerMs);
    b.at = now;
    // A full bucket is the same as none: forget the client.
    if (b.tokens >= opts.perMinute) buckets.delete(client);
    return b;
  };
  const wait = (tokens: number) => (tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)));
  return {
    blockedFor(client, now) {
      const b = refill(client, now);
      return b ? wait(b.tokens) : 0;
    },
    fail(client, now) {
      let b = refill(client, now);
      if (!b || !buckets.has(client)) {
        if (buckets.size >= maxClients) buckets.clear();
        b = { tokens: opts.perMinute, at: now };
        buckets.set(client, b);
      }
      const wasBlocked = b.tokens < 1;
      b.tokens -= 1;
      const retryAfter = wait(b.tokens);
      return { retryAfter, started: retryAfter > 0 && !wasBlocked };
    },
  };
}
