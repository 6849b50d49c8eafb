/**
 * Vector-space pseudo-relevance feedback (Rocchio), pure. The top BM25 passages of a query are
 * assumed relevant; the query vector moves toward their mean,
 * `q' = normalize(q + β · mean(unit vectors of the top-m lexical candidates))`,
 * and every candidate's semantic score becomes its cosine to q'. No extra SQL: the candidates carry
 * their cosine to q and their vector, and
 * `cos(q', c) = (cos(q, c) + β · μ·ĉ) / |q + βμ|` with `|q + βμ|² = 1 + 2β · q·μ + β²|μ|²`, where
 * `q·μ` is the mean cosine of the feedback passages. See docs/retrieval.md (Fusion) for the measurements.
 */
import { type Candidate, ranks } from './fusion.ts';
import { parseVector } from './vectors.ts';

export interface VectorFeedback {
  /** Feedback passages: the top `docs` candidates by BM25 (m). */
  readonly docs: number;
  /** Weight of their mean vector against the query vector (β); 0 disables feedback. */
  readonly beta: number;
}

/** Chosen on cranfield, confirmed on coffee-stackexchange (docs/retrieval.md). */
export const DEFAULT_FEEDBACK: VectorFeedback = { docs: 3, beta: 1 };

function unit(v: Float32Array | null): Float32Array | null {
  if (!v || v.length === 0) return null;
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s === 0) return null;
  const inv = 1 / Math.sqrt(s);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/**
 * Candidates re-scored against the Rocchio query: `semantic` becomes cos(q', c) and `vecRank` is
 * recomputed over the vector list by it. Unchanged (the same array) when feedback is off, there is no
 * lexical candidate with a comparable vector, or no semantic score at all. `vectors` gives each
 * candidate's stored vector (any length; normalized here).
 */
export function rocchioCandidates(
  cands: readonly Candidate[],
  vectors: ReadonlyMap<string, Float32Array | null>,
  fb: VectorFeedback,
): readonly Candidate[] {
  const m = Math.floor(fb.docs);
  if (m < 1 || !(fb.beta > 0)) return cands;
  const feedback = cands
    .filter((c) => c.lexRank !== null && c.semantic !== null && (c.lexical ?? 0) > 0)
    .sort((a, b) => (a.lexRank ?? 0) - (b.lexRank ?? 0))
    .map((c) => ({ c, v: unit(vectors.get(c.id) ?? null) }))
    .filter((x): x is { c: Candidate; v: Float32Array } => x.v !== null)
    .slice(0, m);
  const first = feedback[0];
  if (!first) return cands;
  const dims = first.v.length;
  const used = feedback.filter((x) => x.v.length === dims);
  const mu = new Float32Array(dims);
  let qmu = 0;
  for (const { c, v } of used) {
    for (let i = 0; i < dims; i++) mu[i]! += v[i]! / used.length;
    qmu += (c.semantic ?? 0) / used.length;
  }
  let mu2 = 0;
  for (let i = 0; i < dims; i++) mu2 += mu[i]! * mu[i]!;
  const { beta } = fb;
  const qnorm = Math.sqrt(Math.max(1e-12, 1 + 2 * beta * qmu + beta * beta * mu2));
  const rescored = cands.map((c): Candidate => {
    if (c.semantic === null) return c;
    const v = vectors.get(c.id);
    if (!v || v.length !== dims) return c;
    let d = 0;
    let n = 0;
    for (let i = 0; i < dims; i++) {
      d += mu[i]! * v[i]!;
      n += v[i]! * v[i]!;
    }
    if (n === 0) return c;
    return { ...c, semantic: (c.semantic + (beta * d) / Math.sqrt(n)) / qnorm };
  });
  const vecRanks = ranks(rescored.filter((c) => c.vecRank !== null).map((c) => ({ id: c.id, score: c.semantic ?? -1 })));
  return rescored.map((c) => (c.vecRank === null ? c : { ...c, vecRank: vecRanks.get(c.id) ?? c.vecRank }));
}

/**
 * The stored vector of each candidate row that has a semantic score (`chunk_id`, `vec` as either
 * column returns it); rows in another model's space are not parsed.
 */
export function rowVectors(rows: readonly { readonly chunk_id: string; readonly semantic: number | null; readonly vec: unknown }[]): Map<string, Float32Array | null> {
  const out = new Map<string, Float32Array | null>();
  for (const r of rows) if (r.semantic !== null && r.semantic !== undefined) out.set(r.chunk_id, parseVector(r.vec));
  return out;
}
