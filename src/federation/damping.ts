export const DEFAULT_DAMPING_THRESHOLD = 2.0;
/** Each node is asked for this many candidates per surfaced result, so re-ranking has room to choose. */
export const OVERFETCH = 3;

export interface DampingPlan {
  readonly active: boolean;
  readonly threshold: number;
  /** How many items the answer may hold. */
  readonly surfaced: number;
  /** How many candidates each node (local source or remote Atrium) is asked for. */
  readonly per_node_budget: number;
}

/**
 * Homeostasis damping (docs/ranking.md): active exactly when `entropy > threshold`. Then the answer holds
 * `max(1, ceil(max_results · threshold / entropy))` items and each node's budget shrinks in proportion,
 * so the reduction happens at the nodes too, not only in the final list.
 */
export function planDamping(entropy: number, maxResults: number, threshold = DEFAULT_DAMPING_THRESHOLD): DampingPlan {
  const active = entropy > threshold;
  const surfaced = active ? Math.max(1, Math.ceil((maxResults * Math.max(0, threshold)) / entropy)) : maxResults;
  return { active, threshold, surfaced, per_node_budget: surfaced * OVERFETCH };
}
