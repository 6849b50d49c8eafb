import { DEFAULT_FEEDBACK, rocchioCandidates, rowVectors, type VectorFeedback } from '../feedback.ts';
import { type Candidate, convexScores, rrfScore } from '../fusion.ts';
import type { FusionMethod, Passage } from '../types.ts';
import { parseVector } from '../vectors.ts';
import type { CandidateRow } from './rows.ts';

/** Fusion used when the request does not name one; chosen by measurement (docs/retrieval.md). */
export const DEFAULT_FUSION: FusionMethod = 'convex';
/** Weight of the semantic score in the convex combination (docs/retrieval.md). */
export const DEFAULT_ALPHA = 0.4;

/** The fused candidate set of one query before ranking (the eval ranks it several ways). */
export interface RetrievedCandidates {
  readonly rows: readonly CandidateRow[];
  readonly candidates: readonly Candidate[];
  readonly lists: number;
  /** False when the lexical top-k came from the impact lists without a proof that it is exact. */
  readonly lexicalExact?: boolean;
}

/**
 * A ranked candidate: its scores and (when the candidate statement read it) its vector; `passagesOf` (passages.ts)
 * adds the content and document fields that make it a Passage.
 */
export type RankedCandidate = Pick<Passage, 'chunk_id' | 'document_id' | 'lexical_score' | 'semantic_score' | 'fused_score' | 'embedding_model' | 'vector'>;

/** Orders candidates by the fused score (RRF or the convex combination), best `limit` first. */
export function rankCandidates(
  retrieved: RetrievedCandidates,
  opts: { fusion?: FusionMethod; alpha?: number; feedback?: VectorFeedback | false; limit: number },
): RankedCandidate[] {
  const { rows, candidates: cands, lists } = retrieved;
  const limit = Math.max(1, Math.min(1000, Math.floor(opts.limit)));
  const fusion = opts.fusion ?? DEFAULT_FUSION;
  // Vector pseudo-relevance feedback (feedback.ts) changes only the fusion input; passages keep cos(q, c).
  const feedback = opts.feedback ?? DEFAULT_FEEDBACK;
  const vectors = feedback && lists > 1 ? rowVectors(rows) : null;
  const scored = vectors && feedback ? rocchioCandidates(cands, vectors, feedback) : cands;
  const fused = fusion === 'rrf' ? new Map(scored.map((c) => [c.id, rrfScore(c, lists)])) : convexScores(scored, opts.alpha ?? DEFAULT_ALPHA);
  const byId = new Map(rows.map((r) => [r.chunk_id, r]));
  return cands
    .map((c) => ({ c, score: fused.get(c.id) ?? 0 }))
    .sort((a, b) => b.score - a.score || (b.c.lexical ?? 0) - (a.c.lexical ?? 0) || a.c.id.localeCompare(b.c.id))
    .slice(0, limit)
    .flatMap(({ c, score }) => {
      const r = byId.get(c.id);
      if (!r) return [];
      return [
        {
          chunk_id: c.id,
          document_id: r.document_id,
          lexical_score: c.lexical ?? 0,
          semantic_score: c.semantic,
          fused_score: Math.max(0, Math.min(1, score)),
          embedding_model: r.chunk_model,
          vector: vectors?.get(c.id) ?? parseVector(r.vec),
        },
      ];
    });
}
