/** Statuses worth retrying: rate limiting and server-side trouble. Other 4xx are the caller's to fix. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Parses `Retry-After` (delta-seconds or an HTTP date) into milliseconds from `now`; undefined when absent/invalid. */
export function parseRetryAfter(header: string | null | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Delay before retry number `attempt` (0-based): the server's `Retry-After` when it sent one (capped at
 * `maxMs`), else exponential backoff with "equal jitter": half fixed, half random, so clients spread out.
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, policy: BackoffPolicy, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxMs);
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(exp / 2 + (exp / 2) * random());
}
