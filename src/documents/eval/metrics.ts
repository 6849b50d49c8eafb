/** Retrieval metrics as BEIR / trec_eval compute them (linear gain nDCG). Pure. */

export type Qrels = ReadonlyMap<string, ReadonlyMap<string, number>>;

export function ndcgAt(ranked: readonly string[], rels: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) {
    const g = rels.get(ranked[i] ?? '') ?? 0;
    if (g > 0) dcg += g / Math.log2(i + 2);
  }
  const ideal = [...rels.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += (ideal[i] ?? 0) / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

export function recallAt(ranked: readonly string[], rels: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...rels.entries()].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mrrAt(ranked: readonly string[], rels: ReadonlyMap<string, number>, k: number): number {
  for (let i = 0; i < Math.min(k, ranked.length); i++) if ((rels.get(ranked[i] ?? '') ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? 0;
}

export const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
