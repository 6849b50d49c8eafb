import type { Passage } from '../documents/index.ts';
import { clamp01, combineRelevance, criticalTerm, hasEmotionalLanguage, intentFit, itemFeatures, temporalWeight, translatedMatch } from './combine.ts';
import { CONTENT_URGENCY, type CriticalResult, detectCritical } from './critical.ts';
import { ageDays, temporalStatus } from './decay.ts';
import type { IntentSignal } from './intent.ts';
import type { FederatedItem } from './item.ts';
import { contentTerms } from './terms.ts';
import type { TombstoneTarget } from './tombstone.ts';

/** The passage fields ranking reads: a subset of the documents module's `Passage`. */
export type PassageFields = Pick<
  Passage,
  | 'chunk_id'
  | 'content'
  | 'document_id'
  | 'source_node'
  | 'connector_type'
  | 'external_id'
  | 'title'
  | 'url'
  | 'author'
  | 'document_type'
  | 'created_at'
  | 'updated_at'
  | 'ingested_at'
  | 'metadata'
  | 'lexical_score'
  | 'embedding_model'
>;

/** A local passage after translation: its similarity in the query's space and the translation's confidence. */
export interface LocalCandidate {
  readonly passage: PassageFields;
  /** Cosine similarity in the query model's space (−1..1), or null when it could not be computed. */
  readonly semantic: number | null;
  readonly federation_confidence: number;
  readonly translation: { readonly applied: boolean; readonly from: string | null; readonly to: string | null; readonly translation_id: string | null };
}

export interface RankContext {
  readonly now: Date;
  readonly intent: IntentSignal;
  readonly lambda: number;
  readonly userId: string;
  /** Terms of the user's earlier queries in the entropy window (not the current one). */
  readonly contextTerms: ReadonlySet<string>;
  readonly tombstoneOf: (t: TombstoneTarget) => string | null;
  readonly includeReasoning: boolean;
}

const FORMULA =
  'relevance = match · temporal · (0.75 + 0.15·intent_fit + 0.10·critical); match = c·(0.65·semantic + 0.35·lexical) + (1−c)·lexical, c = federation_confidence; temporal = (1−μ) + μ·exp(−λ·days), μ = 0.5 + 0.5·urgency';

/**
 * Scores local candidates into response items: one item per document (its best passage), lexical scores
 * normalized by the best lexical score among the candidates, then match, decay, intent, critical → relevance.
 */
export function rankLocal(candidates: readonly LocalCandidate[], ctx: RankContext): FederatedItem[] {
  const maxLex = candidates.reduce((m, c) => Math.max(m, c.passage.lexical_score), 0);
  // First the best passage of each document by match, then the per-document work only for those.
  const best = new Map<string, { c: LocalCandidate; lexical: number; semantic: number | null; match: number }>();
  for (const c of candidates) {
    const lexical = maxLex > 0 ? c.passage.lexical_score / maxLex : 0;
    const semantic = c.semantic === null ? null : clamp01(c.semantic);
    const match = translatedMatch(semantic, c.federation_confidence, lexical);
    const prev = best.get(c.passage.document_id);
    if (!prev || match > prev.match) best.set(c.passage.document_id, { c, lexical, semantic, match });
  }
  return [...best.values()].map(({ c, lexical, semantic, match }) => {
    const p = c.passage;
    // A source that gives no timestamp: the document is as old as Atrium's knowledge of it.
    const timestamp = p.updated_at ?? p.created_at ?? p.ingested_at;
    const days = ageDays(timestamp, ctx.now);
    const memo = passageMemo(p);
    const urgent = ctx.intent.urgency >= CONTENT_URGENCY ? 1 : 0;
    // detectCritical reads the body only for urgent queries: one memo per side of that threshold.
    const critical = memo.critical[urgent] ?? detectCritical(p, ctx.intent.urgency);
    memo.critical[urgent] = critical;
    const features = itemFeatures({ ...p, days, is_critical: critical.is_critical, emotional: memo.emotional }, ctx.userId, ctx.contextTerms, memo.terms);
    const fit = intentFit(ctx.intent, features);
    const temporal = temporalWeight(days, ctx.lambda, ctx.intent.urgency);
    const crit = criticalTerm(critical.is_critical, ctx.intent.urgency);
    const tombstone = ctx.tombstoneOf(p);
    const item: FederatedItem = {
      id: p.document_id,
      content: p.content,
      source_node: p.source_node,
      relevance_score: round(combineRelevance(match, temporal, fit, crit)),
      semantic_similarity: round(semantic ?? 0),
      federation_confidence: round(clamp01(c.federation_confidence)),
      temporal_status: temporalStatus(days),
      is_critical: critical.is_critical,
      suppressed_by_tombstone: tombstone !== null,
      metadata: {
        ...p.metadata,
        title: p.title,
        url: p.url,
        author: p.author,
        timestamp,
        created_at: p.created_at,
        updated_at: p.updated_at,
        connector_type: p.connector_type,
        document_type: p.document_type,
        external_id: p.external_id,
        chunk_id: p.chunk_id,
        embedding_model: p.embedding_model,
      },
      ...(ctx.includeReasoning
        ? {
            reasoning: {
              match: round(match),
              semantic: semantic === null ? null : round(semantic),
              lexical: round(lexical),
              lexical_raw: round(p.lexical_score),
              days_since_update: Number.isFinite(days) ? round(days) : null,
              decay: round(Math.exp(-ctx.lambda * (Number.isFinite(days) ? days : Number.POSITIVE_INFINITY))),
              temporal_weight: round(temporal),
              intent_fit: round(fit),
              intent_features: features,
              critical_signals: critical.signals,
              critical_term: round(crit),
              tombstone_id: tombstone,
              translation: c.translation,
              formula: FORMULA,
            },
          }
        : {}),
    };
    return item;
  });
}

/**
 * What ranking derives from a passage's text alone, memoized per passage object: cached fan-outs are
 * re-ranked on every hit (the user's context and the clock change), their text does not.
 */
interface PassageMemo {
  readonly terms: string[];
  readonly emotional: boolean;
  /** detectCritical's answer below and at/above CONTENT_URGENCY. */
  readonly critical: [CriticalResult | undefined, CriticalResult | undefined];
}
const memos = new WeakMap<PassageFields, PassageMemo>();
function passageMemo(p: PassageFields): PassageMemo {
  let m = memos.get(p);
  if (!m) {
    m = { terms: contentTerms(`${p.title} ${p.content}`), emotional: hasEmotionalLanguage(p), critical: [undefined, undefined] };
    memos.set(p, m);
  }
  return m;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
