import type { Passage } from '../documents/index.ts';
import { clamp01, criticalTerm, hasEmotionalLanguage, intentFit, itemFeatures, SEMANTIC_WEIGHT, temporalWeight, translatedMatch } from './combine.ts';
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

/** What every stage may read of one candidate: its passage, normalized scores, age and critical signals. */
export interface StageInput {
  readonly candidate: LocalCandidate;
  /** BM25 over the best BM25 of this query's local candidates (0..1). */
  readonly lexical: number;
  /** The clamped cosine in the query model's space, or null. */
  readonly semantic: number | null;
  readonly days: number;
  readonly critical: CriticalResult;
  readonly terms: readonly string[];
  readonly emotional: boolean;
}

/**
 * One ranking stage: a pure function of a candidate and the query's context to its term and the reasoning shown for
 * it. `weight` says how the term enters the relevance: as a factor, or as a weighted addend of the modifier
 * `(MODIFIER_BASE + Σ weight·term)`. The relevance and the formula users see are both derived from this list.
 */
export interface RankStage {
  readonly name: string;
  readonly weight: 'factor' | number;
  /** The term's definition in the formula text (a factor's), when it is more than its name. */
  readonly definition?: string;
  score(input: StageInput, ctx: RankContext): { readonly term: number; readonly reasoning: Readonly<Record<string, unknown>> };
}

export const MODIFIER_BASE = 0.75;

const matchStage: RankStage = {
  name: 'match',
  weight: 'factor',
  definition: `c·(${SEMANTIC_WEIGHT}·semantic + ${(1 - SEMANTIC_WEIGHT).toFixed(2)}·lexical) + (1−c)·lexical, c = federation_confidence`,
  score: ({ candidate: c, lexical, semantic }) => {
    const match = translatedMatch(semantic, c.federation_confidence, lexical);
    return { term: match, reasoning: { match: round(match), semantic: semantic === null ? null : round(semantic), lexical: round(lexical), lexical_raw: round(c.passage.lexical_score) } };
  },
};

const temporalStage: RankStage = {
  name: 'temporal',
  weight: 'factor',
  definition: '(1−μ) + μ·exp(−λ·days), μ = 0.5 + 0.5·urgency',
  score: ({ days }, ctx) => {
    const temporal = temporalWeight(days, ctx.lambda, ctx.intent.urgency);
    const known = Number.isFinite(days);
    return {
      term: temporal,
      reasoning: {
        days_since_update: known ? round(days) : null,
        decay: round(Math.exp(-ctx.lambda * (known ? days : Number.POSITIVE_INFINITY))),
        temporal_weight: round(temporal),
      },
    };
  },
};

const intentStage: RankStage = {
  name: 'intent_fit',
  weight: 0.15,
  score: ({ candidate: { passage: p }, days, critical, terms, emotional }, ctx) => {
    const features = itemFeatures({ ...p, days, is_critical: critical.is_critical, emotional }, ctx.userId, ctx.contextTerms, terms);
    const fit = intentFit(ctx.intent, features);
    return { term: clamp01(fit), reasoning: { intent_fit: round(fit), intent_features: features } };
  },
};

const criticalStage: RankStage = {
  name: 'critical',
  weight: 0.1,
  score: ({ critical }, ctx) => {
    const term = criticalTerm(critical.is_critical, ctx.intent.urgency);
    return { term: clamp01(term), reasoning: { critical_signals: critical.signals, critical_term: round(term) } };
  },
};

/** The ranking pipeline, in the order its terms appear in the formula (docs/ranking.md §7). */
export const RANK_STAGES: readonly RankStage[] = [matchStage, temporalStage, intentStage, criticalStage];

/** `relevance = Π factors · (MODIFIER_BASE + Σ weight·term)`, in 0..1 because every term is. */
export function combineTerms(stages: readonly RankStage[], terms: readonly number[]): number {
  let product = 1;
  let modifier = MODIFIER_BASE;
  stages.forEach((s, i) => {
    const t = terms[i] ?? 0;
    if (s.weight === 'factor') product *= t;
    else modifier += s.weight * t;
  });
  return clamp01(product * modifier);
}

/** The formula text shown in `reasoning.formula`, written from the stages. */
export function rankingFormula(stages: readonly RankStage[]): string {
  const factors = stages.filter((s) => s.weight === 'factor');
  const addends = stages.flatMap((s) => (s.weight === 'factor' ? [] : [`${s.weight.toFixed(2)}·${s.name}`]));
  const head = `relevance = ${[...factors.map((s) => s.name), `(${[MODIFIER_BASE, ...addends].join(' + ')})`].join(' · ')}`;
  return [head, ...stages.flatMap((s) => (s.definition ? [`${s.name} = ${s.definition}`] : []))].join('; ');
}

const FORMULA = rankingFormula(RANK_STAGES);

/**
 * Scores local candidates into response items: one item per document (its best passage), lexical scores
 * normalized by the best lexical score among the candidates, then each stage of RANK_STAGES → relevance.
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
  return [...best.values()].map(({ c, lexical, semantic }) => {
    const p = c.passage;
    // A source that gives no timestamp: the document is as old as Atrium's knowledge of it.
    const timestamp = p.updated_at ?? p.created_at ?? p.ingested_at;
    const days = ageDays(timestamp, ctx.now);
    const memo = passageMemo(p);
    const urgent = ctx.intent.urgency >= CONTENT_URGENCY ? 1 : 0;
    // detectCritical reads the body only for urgent queries: one memo per side of that threshold.
    const critical = memo.critical[urgent] ?? detectCritical(p, ctx.intent.urgency);
    memo.critical[urgent] = critical;
    const scored = RANK_STAGES.map((s) => s.score({ candidate: c, lexical, semantic, days, critical, terms: memo.terms, emotional: memo.emotional }, ctx));
    const tombstone = ctx.tombstoneOf(p);
    const item: FederatedItem = {
      id: p.document_id,
      content: p.content,
      source_node: p.source_node,
      relevance_score: round(combineTerms(RANK_STAGES, scored.map((x) => x.term))),
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
      ...(ctx.includeReasoning ? { reasoning: Object.assign({}, ...scored.map((x) => x.reasoning), { tombstone_id: tombstone, translation: c.translation, formula: FORMULA }) } : {}),
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
