import fs from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddingProvider } from '../../src/embeddings/index.ts';
import { translateVector, type TrainedPair } from '../../src/vec2vec/index.ts';
import { readJsonl } from './corpus.ts';

type Embed = (p: EmbeddingProvider, texts: readonly string[]) => Promise<Float32Array[]>;

/** trec_eval-style nDCG@k (linear gain) of one ranking against graded judgements. */
export function ndcgAt(ranked: readonly string[], rels: ReadonlyMap<string, number>, k = 10): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += (rels.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...rels.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

function rank(q: Float32Array, docs: readonly Float32Array[], ids: readonly string[], k = 10): string[] {
  const scored = docs.map((d, i) => {
    let s = 0;
    for (let j = 0; j < d.length; j++) s += d[j]! * q[j]!;
    return [s, i] as const;
  });
  scored.sort((a, b) => b[0] - a[0]);
  return scored.slice(0, k).map(([, i]) => ids[i]!);
}

function meanNdcg(queries: readonly Float32Array[], qids: readonly string[], docs: readonly Float32Array[], dids: readonly string[], qrels: Map<string, Map<string, number>>): number {
  let s = 0;
  qids.forEach((qid, i) => {
    s += ndcgAt(rank(queries[i]!, docs, dids), qrels.get(qid) ?? new Map());
  });
  return s / Math.max(1, qids.length);
}

/**
 * nDCG@10 of dense retrieval on a BEIR set: native (query and documents with the same model) against
 * translated (documents indexed with model B, the query embedded with model A and translated A → B;
 * or the documents translated B → A and compared with the native A query).
 */
export async function retrievalThroughTranslation(dir: string, models: { glove: EmbeddingProvider; use: EmbeddingProvider }, embed: Embed, pair: TrainedPair) {
  const docs = await readJsonl<{ _id: string; title: string; text: string }>(path.join(dir, 'corpus.jsonl'));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of (await fs.readFile(path.join(dir, 'qrels.tsv'), 'utf8')).split('\n').slice(1)) {
    const [q, d, s] = line.split('\t');
    if (!q || !d || !s || Number(s) <= 0) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  const queries = (await readJsonl<{ _id: string; text: string }>(path.join(dir, 'queries.jsonl'))).filter((q) => qrels.has(q._id));
  const dids = docs.map((d) => d._id);
  const qids = queries.map((q) => q._id);
  const docText = docs.map((d) => `${d.title} ${d.text}`.replace(/<[^>]+>/g, ' ').trim().slice(0, 2000));
  const qText = queries.map((q) => q.text);
  const dv = { glove: await embed(models.glove, docText), use: await embed(models.use, docText) };
  const qv = { glove: await embed(models.glove, qText), use: await embed(models.use, qText) };
  const mapUseToGlove = (v: Float32Array) => translateVector(pair.forward, v);
  const mapGloveToUse = (v: Float32Array) => translateVector(pair.backward, v);
  const r4 = (v: number) => Math.round(v * 10000) / 10000;
  const nativeUse = meanNdcg(qv.use, qids, dv.use, dids, qrels);
  const nativeGlove = meanNdcg(qv.glove, qids, dv.glove, dids, qrels);
  const qGloveToUse = meanNdcg(qv.glove.map(mapGloveToUse), qids, dv.use, dids, qrels);
  const qUseToGlove = meanNdcg(qv.use.map(mapUseToGlove), qids, dv.glove, dids, qrels);
  const dUseToGlove = meanNdcg(qv.glove, qids, dv.use.map(mapUseToGlove), dids, qrels);
  const dGloveToUse = meanNdcg(qv.use, qids, dv.glove.map(mapGloveToUse), dids, qrels);
  return {
    queries: qids.length,
    documents: dids.length,
    ndcg10_native_use: r4(nativeUse),
    ndcg10_native_glove: r4(nativeGlove),
    index_use_query_glove_translated: { ndcg10: r4(qGloveToUse), ratio_to_native: r4(qGloveToUse / nativeUse) },
    index_glove_query_use_translated: { ndcg10: r4(qUseToGlove), ratio_to_native: r4(qUseToGlove / nativeGlove) },
    index_use_docs_translated_to_glove_query_glove: { ndcg10: r4(dUseToGlove), ratio_to_native_use: r4(dUseToGlove / nativeUse) },
    index_glove_docs_translated_to_use_query_use: { ndcg10: r4(dGloveToUse), ratio_to_native_glove: r4(dGloveToUse / nativeGlove) },
  };
}
