/**
 * Hybrid retrieval (docs/retrieval.md): `searchPassages` plans one SQL statement (filters.ts, lexical.ts, vector.ts),
 * runs it (retrieve.ts), types its rows (rows.ts), ranks them (rank.ts) and reads the passages of the best (passages.ts).
 */
import type { DocumentsDeps, Passage, SearchRequest } from '../types.ts';
import { passagesOf } from './passages.ts';
import { rankCandidates } from './rank.ts';
import { retrieveCandidates } from './retrieve.ts';

export { RESCORE_FACTOR } from './lexical.ts';
export { passagesOf } from './passages.ts';
export { embedQuery, QUERY_EMBED_TIMEOUT_MS } from './query-vector.ts';
export { DEFAULT_ALPHA, DEFAULT_FUSION, type RankedCandidate, type RetrievedCandidates, rankCandidates } from './rank.ts';
export { defaultDepths, HYBRID_VECTOR_DEPTH, retrieveCandidates } from './retrieve.ts';
export type { CandidateRow } from './rows.ts';
export { quoteLexeme } from './sql.ts';
export { EXACT_VECTOR_BELOW, NO_PGVECTOR_SCAN_MAX, NO_PGVECTOR_SCAN_TIMEOUT_MS } from './vector.ts';

/**
 * The passages of a query, best first: every returned passage carries its lexical score, its cosine to the query
 * (null when its vector is in another model's space) and the fused score.
 */
export async function searchPassages(deps: DocumentsDeps, req: SearchRequest): Promise<Passage[]> {
  const retrieved = await retrieveCandidates(deps, req);
  const ranked = rankCandidates(retrieved, { fusion: req.fusion, alpha: req.alpha, feedback: req.feedback, limit: req.limit });
  const passages = await passagesOf(deps, req, ranked);
  req.signal?.throwIfAborted();
  return passages;
}
