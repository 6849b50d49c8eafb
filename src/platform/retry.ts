/**
 * Retry timing, once for the codebase: the job worker, the connector kit (vendor 429s) and the OpenAI-compatible
 * embeddings client all wait with `backoffMs` and read `Retry-After` with `parseRetryAfter`.
 */

/**
 * Exponential backoff with equal jitter before retry number `attempt` (1-based): the cap doubles from `baseMs` per
 * attempt up to `capMs`, and the wait is half of it fixed plus half random, so clients spread out.
 */
export function backoffMs(attempt: number, policy: { readonly baseMs: number; readonly capMs: number }, random: () => number = Math.random): number {
  const cap = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into ms from `now` (epoch ms), or null when absent or invalid. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
