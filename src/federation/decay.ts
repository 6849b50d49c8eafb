export const DEFAULT_DECAY_LAMBDA = 0.05;
export const RECENT_DAYS = 7;
export const STALE_DAYS = 30;

export type TemporalStatus = 'recent' | 'stale' | 'historical';

const DAY_MS = 86_400_000;

/**
 * Days from `timestamp` to `now` (never negative: a timestamp in the future counts as 0 days).
 * A document with no timestamp counts as historical: `Infinity`.
 */
export function ageDays(timestamp: string | Date | null | undefined, now: Date): number {
  if (timestamp === null || timestamp === undefined) return Number.POSITIVE_INFINITY;
  const t = new Date(timestamp).getTime();
  if (Number.isNaN(t)) return Number.POSITIVE_INFINITY;
  return Math.max(0, (now.getTime() - t) / DAY_MS);
}

/** The spec's temporal decay: `weight = base_score * exp(-lambda * days)`. */
export function temporalDecay(baseScore: number, days: number, lambda = DEFAULT_DECAY_LAMBDA): number {
  if (!Number.isFinite(days)) return 0;
  return baseScore * Math.exp(-lambda * days);
}

/** recent ≤ 7 days, stale 7-30 days (7 excluded, 30 included), historical > 30 days. */
export function temporalStatus(days: number): TemporalStatus {
  if (days <= RECENT_DAYS) return 'recent';
  if (days <= STALE_DAYS) return 'stale';
  return 'historical';
}
