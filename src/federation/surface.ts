import type { DampingPlan } from './damping.ts';
import type { EntropyLevel } from './entropy.ts';
import type { FederatedItem } from './item.ts';

/** The lowest relevance an item needs to be surfaced at each entropy level; `critical` keeps critical items only. */
export const LEVEL_FLOORS: Readonly<Record<Exclude<EntropyLevel, 'critical'>, number>> = {
  very_low: 0,
  low: 0.05,
  normal: 0.1,
  high: 0.2,
};

/** The order of the answer: live before tombstoned, critical first while damping, then relevance, then id. */
export function compareItems(damping: boolean): (a: FederatedItem, b: FederatedItem) => number {
  return (a, b) =>
    Number(a.suppressed_by_tombstone) - Number(b.suppressed_by_tombstone) ||
    (damping ? Number(b.is_critical) - Number(a.is_critical) : 0) ||
    b.relevance_score - a.relevance_score ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Entropy-aware surfacing (docs/ranking.md): drops non-critical items under the level's floor (critical level:
 * every non-critical item; critical items are never dropped by a floor), orders them with `compareItems`
 * (critical first while damping, or when `criticalFirst` says so), and keeps the damping plan's `surfaced` count.
 */
export function surfaceItems(items: readonly FederatedItem[], level: EntropyLevel, plan: DampingPlan, criticalFirst = plan.active): FederatedItem[] {
  const kept = items.filter((i) => i.is_critical || (level !== 'critical' && i.relevance_score >= LEVEL_FLOORS[level]));
  return takeWithTombstones(kept.sort(compareItems(criticalFirst)), plan.surfaced);
}

/**
 * Places of a list of `count` items kept for tombstoned ones: one in five, at least one — except in a one-item answer,
 * which keeps the best live item (asked for one result, the caller wants the best document, not a forgotten one).
 */
export function tombstoneReserve(count: number): number {
  return count < 2 ? 0 : Math.max(1, Math.floor(count / 5));
}

/**
 * The first `count` items of `sorted` (ordered by `compareItems`: live before tombstoned), except that up to
 * `tombstoneReserve(count)` places go to the best tombstoned items: a forgotten document must stay visible
 * (flagged) in the answer the user actually gets, not rank below every live item and fall off the end. Places
 * the tombstoned items do not need go to live items, and the other way round. Live items still come first.
 */
export function takeWithTombstones(sorted: readonly FederatedItem[], count: number): FederatedItem[] {
  const live = sorted.filter((i) => !i.suppressed_by_tombstone);
  const tombstoned = sorted.filter((i) => i.suppressed_by_tombstone);
  const reserved = Math.min(tombstoned.length, tombstoneReserve(count), count);
  const liveTaken = Math.min(live.length, count - reserved);
  return [...live.slice(0, liveTaken), ...tombstoned.slice(0, Math.min(tombstoned.length, count - liveTaken))];
}
