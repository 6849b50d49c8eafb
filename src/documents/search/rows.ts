import { cosine } from '../../embeddings/vector.ts';
import { type Candidate, ranks } from '../fusion.ts';
import { parseVector } from '../vectors.ts';
import type { ImpactProbe } from './lexical.ts';

/**
 * One row of the candidate statement as the driver returns it (PGlite and node-postgres differ in numbers): ids,
 * scores and, where the statement has a vector side, the chunk's vector. What a passage shows (content, the
 * document's fields) is read afterwards for the returned passages only (passages.ts).
 */
export interface SqlCandidateRow {
  readonly chunk_id: string;
  readonly document_id: string;
  readonly chunk_model: string | null;
  /** The chunk vector as text: pgvector's '[…]' or real[]'s '{…}'; absent when the statement has no vector side. */
  readonly vec?: string | null;
  readonly lexical: number | string | null;
  readonly semantic: number | string | null;
  readonly in_lex: boolean;
  readonly in_vec: boolean;
  readonly lex_cands?: number | string | null;
  readonly lex_last?: number | string | null;
  readonly lex_need?: boolean | null;
  readonly lex_pass?: number | string | null;
  readonly lex_pass_last?: number | string | null;
}

/** A candidate chunk, typed: what fusion and ranking read. */
export interface CandidateRow {
  readonly chunk_id: string;
  readonly document_id: string;
  readonly chunk_model: string | null;
  /** The stored vector: its text, or the vector itself once the app has parsed it (no pgvector); null when not read. */
  readonly vec: string | Float32Array | null;
  /** BM25 (null when not computed); cosine to the query (null when the chunk is in another space or has no direction). */
  readonly lexical: number | null;
  readonly semantic: number | null;
  /** Whether the chunk is in the lexical / vector list. */
  readonly in_lex: boolean;
  readonly in_vec: boolean;
}

/** A finite number, else null (a chunk stored with the zero vector has no cosine: NaN from pgvector becomes null). */
function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Typed rows from the statement's. With `appCosine` (no pgvector) the cosine is computed here from each row's vector
 * in the query's model, parsed once (ranking's feedback reads the same vector).
 */
export function candidateRows(raw: readonly SqlCandidateRow[], appCosine: { model: string; vector: Float32Array } | null): CandidateRow[] {
  return raw.map((r) => {
    let vec: string | Float32Array | null | undefined = r.vec;
    let semantic = num(r.semantic);
    if (appCosine) {
      const v = r.chunk_model === appCosine.model ? parseVector(r.vec) : null;
      vec = v;
      semantic = v && v.length === appCosine.vector.length ? num(cosine(v, appCosine.vector)) : null;
    }
    return {
      chunk_id: String(r.chunk_id),
      document_id: String(r.document_id),
      chunk_model: r.chunk_model ?? null,
      vec: vec ?? null,
      lexical: num(r.lexical),
      semantic,
      in_lex: r.in_lex === true,
      in_vec: r.in_vec === true,
    };
  });
}

/** The impact-list columns, the same on every row (null when the statement has none or returned nothing). */
export function impactProbe(raw: readonly SqlCandidateRow[]): ImpactProbe | null {
  const first = raw[0];
  if (!first) return null;
  return {
    cands: Number(first.lex_cands ?? 0),
    last: Number(first.lex_last ?? 0),
    need: first.lex_need === true,
    passed: Number(first.lex_pass ?? 0),
    passLast: Number(first.lex_pass_last ?? 0),
  };
}

/** The fusion input: per row its two scores and its rank in each list it is in. */
export function candidatesOf(rows: readonly CandidateRow[]): Candidate[] {
  const lexRanks = ranks(rows.filter((r) => r.in_lex).map((r) => ({ id: r.chunk_id, score: r.lexical ?? 0 })));
  const vecRanks = ranks(rows.filter((r) => r.in_vec).map((r) => ({ id: r.chunk_id, score: r.semantic ?? -1 })));
  return rows.map((r) => ({
    id: r.chunk_id,
    lexical: r.lexical,
    semantic: r.semantic,
    lexRank: lexRanks.get(r.chunk_id) ?? null,
    vecRank: vecRanks.get(r.chunk_id) ?? null,
  }));
}
