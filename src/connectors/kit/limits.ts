import { backoffMs } from '../../platform/retry.ts';
import type { VendorLimits } from './contract.ts';

/**
 * Rate limits of one connector, pure: a token bucket per window (second, minute, hour), each sized to
 * its window's quota and refilled continuously. A call proceeds when every bucket has a token.
 * The effective limits are the stricter of the connector's settings and the vendor's documented limits.
 */
export interface WindowBucket {
  readonly capacity: number;
  readonly windowMs: number;
  tokens: number;
  at: number;
}

export function effectiveLimits(settings: Record<string, unknown>, vendor: VendorLimits): VendorLimits {
  const rpm = typeof settings.requests_per_minute === 'number' ? settings.requests_per_minute : undefined;
  const rph = typeof settings.requests_per_hour === 'number' ? settings.requests_per_hour : undefined;
  const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  return { perSecond: vendor.perSecond, perMinute: min(rpm, vendor.perMinute), perHour: min(rph, vendor.perHour) };
}

export function createBuckets(limits: VendorLimits, now: number): WindowBucket[] {
  const out: WindowBucket[] = [];
  if (limits.perSecond) out.push({ capacity: limits.perSecond, windowMs: 1000, tokens: limits.perSecond, at: now });
  if (limits.perMinute) out.push({ capacity: limits.perMinute, windowMs: 60_000, tokens: limits.perMinute, at: now });
  if (limits.perHour) out.push({ capacity: limits.perHour, windowMs: 3_600_000, tokens: limits.perHour, at: now });
  return out;
}

/** Takes one token from every bucket if all have one (returns 0), else returns the ms to wait and takes nothing. */
export function takeToken(buckets: WindowBucket[], now: number): number {
  let wait = 0;
  for (const b of buckets) {
    b.tokens = Math.min(b.capacity, b.tokens + ((now - b.at) * b.capacity) / b.windowMs);
    b.at = now;
    if (b.tokens < 1) wait = Math.max(wait, Math.ceil(((1 - b.tokens) * b.windowMs) / b.capacity));
  }
  if (wait > 0) return wait;
  for (const b of buckets) b.tokens -= 1;
  return 0;
}

/** Retry-After parsing is the platform's, one for the codebase (src/platform/retry.ts). */
export { parseRetryAfter } from '../../platform/retry.ts';

/**
 * The wait before retrying a vendor 429: its `Retry-After` when it sent one, else exponential backoff
 * with jitter (base 1 s, capped at 5 min).
 */
export function rateLimitDelayMs(attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  if (retryAfterMs !== null && retryAfterMs >= 0) return retryAfterMs;
  return backoffMs(attempt, { baseMs: 1000, capMs: 300_000 }, random);
}
