/**
 * Ranking math, pure. BM25 (Lucene's idf) is the reference the SQL implementation is tested
 * against; fusion merges the lexical and the vector candidate lists.
 */

export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** Lucene's non-negative BM25 idf. */
export function bm25Idf(chunkCount: number, df: number): number {
  return Math.log(1 + (chunkCount - df + 0.5) / (df + 0.5));
}

/** BM25 of one passage: `tf` maps each query term to its count in the passage. */
export function bm25Score(
  terms: readonly { tf: number; df: number }[],
  length: number,
  corpus: { chunkCount: number; avgLength: number },
  params: { k1: number; b: number } = BM25,
): number {
  let s = 0;
  for (const { tf, df } of terms) {
    if (tf <= 0) continue;
    const norm = tf + params.k1 * (1 - params.b + (params.b * length) / Math.max(corpus.avgLength, 1e-9));
    s += (bm25Idf(corpus.chunkCount, df) * tf * (params.k1 + 1)) / norm;
  }
  return s;
}

export interface Candidate {
  readonly id: string;
  readonly lexical: number | null;
  readonly semantic: number | null;
  /** 1-based rank in the lexical list, null when not retrieved by it. */
  readonly lexRank: number | null;
  /** 1-based rank in the vector list, null when not retrieved by it. */
  readonly vecRank: number | null;
}

export const RRF_K = 60;

/** Reciprocal rank fusion, scaled to 0..1 (1 = first in both lists). */
export function rrfScore(c: Pick<Candidate, 'lexRank' | 'vecRank'>, lists: number, k = RRF_K): number {
  let s = 0;
  if (c.lexRank !== null) s += 1 / (k + c.lexRank);
  if (c.vecRank !== null) s += 1 / (k + c.vecRank);
  return s / (lists / (k + 1));
}

/**
 * Normalized convex combination: BM25 divided by the best BM25 among the candidates, cosine
 * min-max normalized over the candidates, then `alpha · semantic + (1 − alpha) · lexical`.
 * A candidate with no comparable vector gets semantic 0.
 */
export function convexScores(cands: readonly Candidate[], alpha: number): Map<string, number> {
  const lex = cands.map((c) => c.lexical ?? 0);
  const maxLex = Math.max(0, ...lex);
  const sems = cands.map((c) => c.semantic).filter((s): s is number => s !== null);
  const minSem = sems.length ? Math.min(...sems) : 0;
  const maxSem = sems.length ? Math.max(...sems) : 0;
  const span = maxSem - minSem;
  const out = new Map<string, number>();
  const hasLex = maxLex > 0;
  const hasSem = sems.length > 0;
  for (const c of cands) {
    const l = hasLex ? (c.lexical ?? 0) / maxLex : 0;
    const s = c.semantic === null ? 0 : span > 1e-12 ? (c.semantic - minSem) / span : 1;
    const a = hasLex && hasSem ? alpha : hasSem ? 1 : 0;
    out.set(c.id, a * s + (1 - a) * l);
  }
  return out;
}

/** Ranks 1..n by descending score; ties keep input order. */
export function ranks(items: readonly { id: string; score: number }[]): Map<string, number> {
  const sorted = [...items].sort((a, b) => b.score - a.score);
  return new Map(sorted.map((x, i) => [x.id, i + 1]));
}
