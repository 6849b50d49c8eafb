import type { IntentFeatures } from './combine.ts';
import type { TemporalStatus } from './decay.ts';

/** Why an item scored what it did; present when the request sets `include_reasoning`. */
export type ItemReasoning = {
  readonly match: number;
  readonly semantic: number | null;
  readonly lexical: number;
  readonly lexical_raw: number;
  readonly days_since_update: number | null;
  readonly decay: number;
  readonly temporal_weight: number;
  readonly intent_fit: number;
  readonly intent_features: IntentFeatures;
  readonly critical_signals: readonly string[];
  readonly critical_term: number;
  readonly tombstone_id: string | null;
  readonly translation: { readonly applied: boolean; readonly from: string | null; readonly to: string | null; readonly translation_id: string | null };
  readonly formula: string;
};

/** One item of the federated query response, exactly the spec's fields (+ `reasoning` on request). */
export interface FederatedItem {
  readonly id: string;
  readonly content: string;
  readonly source_node: string;
  readonly relevance_score: number;
  readonly semantic_similarity: number;
  readonly federation_confidence: number;
  readonly temporal_status: TemporalStatus;
  readonly is_critical: boolean;
  readonly suppressed_by_tombstone: boolean;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly reasoning?: ItemReasoning | Readonly<Record<string, unknown>>;
}
