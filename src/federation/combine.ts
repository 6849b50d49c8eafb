import { temporalDecay } from './decay.ts';
import { INTENT_DIMENSIONS, type IntentDimension, type IntentSignal } from './intent.ts';

/** Weight of the semantic score in the match when both scores exist. */
export const SEMANTIC_WEIGHT = 0.65;

/** Item features each intent dimension rewards (docs/ranking.md, "Intent effects"). */
export type IntentFeatures = Readonly<Record<IntentDimension, boolean>>;

const ACTIONABLE_TYPES = new Set(['issue', 'task', 'ticket', 'pull_request', 'pr', 'bug', 'story', 'epic', 'todo', 'action_item', 'incident', 'merge_request']);
const CONVERSATION_TYPES = new Set(['message', 'thread', 'conversation', 'chat', 'comment', 'discussion', 'email', 'reply', 'channel_message', 'meeting_notes']);
const EMOTIONAL_LANGUAGE =
  /\b(frustrat\w*|angry|upset|unhappy|disappoint\w*|complain\w*|complaint|worried|concern(?:ed)?|love|hate|escalat\w*|sorry|apolog\w*|morale|burnout|stress\w*|thank\w*)\b/i;

export interface FeatureInput {
  readonly title: string;
  readonly content: string;
  readonly document_type: string;
  readonly author: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly days: number;
  readonly is_critical: boolean;
  /** `hasEmotionalLanguage(item)` when the caller already knows it (it depends on the text only). */
  readonly emotional?: boolean;
}

export function hasEmotionalLanguage(item: { readonly title: string; readonly content: string }): boolean {
  return EMOTIONAL_LANGUAGE.test(item.title) || EMOTIONAL_LANGUAGE.test(item.content);
}

/**
 * Which intent-rewarded features an item has: urgency ← recent (≤ 7 days) or critical; emotional_weight ←
 * emotional language; action_likelihood ← an actionable type (issue, task, PR…); social_dimension ← a
 * conversation type (message, thread, comment…); context_sensitivity ← the user's own item (author,
 * assignee or owner is the user) or an item about the user's recent queries (shares a term with them).
 */
export function itemFeatures(item: FeatureInput, userId: string, contextTerms: ReadonlySet<string>, itemTerms: readonly string[]): IntentFeatures {
  const user = userId.toLowerCase();
  const people = [item.author, item.metadata.assignee, item.metadata.owner].filter((p): p is string => typeof p === 'string');
  const own = people.some((p) => p.toLowerCase() === user);
  const type = item.document_type.toLowerCase();
  return {
    urgency: item.days <= 7 || item.is_critical,
    emotional_weight: item.emotional ?? hasEmotionalLanguage(item),
    action_likelihood: ACTIONABLE_TYPES.has(type),
    social_dimension: CONVERSATION_TYPES.has(type) || typeof item.metadata.channel === 'string',
    context_sensitivity: own || itemTerms.some((t) => contextTerms.has(t)),
  };
}

/** Intent-weighted share of the rewarded features: Σ I_d·f_d / Σ I_d (0 when every dimension is 0). */
export function intentFit(intent: IntentSignal, features: IntentFeatures): number {
  let num = 0;
  let den = 0;
  for (const d of INTENT_DIMENSIONS) {
    num += intent[d] * (features[d] ? 1 : 0);
    den += intent[d];
  }
  return den > 0 ? num / den : 0;
}

/** `match = 0.65·semantic + 0.35·lexical`, or the lexical score alone when there is no semantic score. */
export function matchScore(semantic: number | null, lexical: number): number {
  return semantic === null ? clamp01(lexical) : clamp01(SEMANTIC_WEIGHT * semantic + (1 - SEMANTIC_WEIGHT) * lexical);
}

/**
 * The match of a passage whose semantic score came through an embedding translation of confidence `c`:
 * `c·matchScore(semantic, lexical) + (1 − c)·lexical`. At c = 1 (the query's own model) it is matchScore; at
 * c = 0 it is what a passage without a semantic score gets. So a weak translation moves a document up or down
 * by how its translated similarity compares with its lexical score, never down by the formula alone (the
 * earlier `0.65·semantic·c + 0.35·lexical` ranked a document with a 0.1-confidence translation below the same
 * document with no translation at all).
 */
export function translatedMatch(semantic: number | null, confidence: number, lexical: number): number {
  const lexicalOnly = matchScore(null, lexical);
  if (semantic === null) return lexicalOnly;
  const c = clamp01(confidence);
  return c * matchScore(semantic, lexical) + (1 - c) * lexicalOnly;
}

/**
 * `temporal = (1 − μ) + μ·exp(−λ·days)` with `μ = 0.5 + 0.5·urgency`: an urgent query applies the spec's
 * decay in full; a non-urgent one keeps half of an old item's weight.
 */
export function temporalWeight(days: number, lambda: number, urgency: number): number {
  const mu = 0.5 + 0.5 * clamp01(urgency);
  return 1 - mu + mu * temporalDecay(1, days, lambda);
}

/** `critical = is_critical ? 0.5 + 0.5·urgency : 0`. */
export function criticalTerm(isCritical: boolean, urgency: number): number {
  return isCritical ? 0.5 + 0.5 * clamp01(urgency) : 0;
}

export function clamp01(x: number): number {
  if (!Number.isFinite(x)) return 0;
  return Math.min(1, Math.max(0, x));
}
