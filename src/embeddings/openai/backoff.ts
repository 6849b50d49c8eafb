import { backoffMs } from '../../platform/retry.ts';

/** Statuses worth retrying: rate limiting and server-side trouble. Other 4xx are the caller's to fix. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
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
  return backoffMs(attempt + 1, { baseMs: policy.baseMs, capMs: policy.maxMs }, random);
}
