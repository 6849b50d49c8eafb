import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { decodeWordVectors, type WordVectorTable } from '../glove/format.ts';
import type { EmbeddingProvider } from '../provider.ts';
import { l2normalize } from '../vector.ts';
import { createUseTokenizer } from './tokenizer.ts';
import { readUseVocabulary } from './vocabulary.ts';

export const DISTILLED_MODEL_ID = 'builtin/use-distilled-512d';
/** The committed artefact, relative to the package root (made by scripts/distill-use.ts). */
export const DISTILLED_FILE = path.join('models', 'use-distilled-512d.i8.bin');

export interface StaticTokenModel {
  readonly table: WordVectorTable;
  readonly weights: Float32Array;
  readonly tokenize: (text: string) => number[];
}

/** SIF weight from a SentencePiece log-probability: rare pieces count, frequent ones barely. */
export function pieceWeight(logProb: number | null, a = 1e-3): number {
  return logProb === null || logProb === 0 ? 0 : a / (a + Math.exp(logProb));
}

/** The SIF-weighted mean of the text's token vectors, L2-normalized (zero when nothing matches). */
export function embedTokens(model: StaticTokenModel, text: string): Float32Array {
  const { dims, scales, values } = model.table;
  const out = new Float32Array(dims);
  for (const id of model.tokenize(text)) {
    const w = (model.weights[id] ?? 0) * (scales[id] ?? 0);
    if (w === 0) continue;
    const base = id * dims;
    for (let d = 0; d < dims; d++) out[d]! += w * values[base + d]!;
  }
  return l2normalize(out);
}

/**
 * A static distillation of the Universal Sentence Encoder: USE's tokenizer plus one vector per token,
 * so it embeds at word-vector speed in the main thread, in USE's (approximate) space.
 */
export function createDistilledUseProvider(opts: { root: string; log?: Logger }): EmbeddingProvider & { load(): Promise<number> } {
  let loading: Promise<StaticTokenModel> | undefined;
  let loadMs = 0;
  const load = () => {
    loading ??= (async () => {
      const started = performance.now();
      const [buf, vocabulary] = await Promise.all([fs.readFile(path.join(opts.root, DISTILLED_FILE)), readUseVocabulary()]);
      const table = decodeWordVectors(buf);
      if (table.words.length !== vocabulary.length || table.words.some((w, i) => w !== vocabulary[i]![0])) {
        throw new Error(`${DISTILLED_FILE} does not match the installed USE vocabulary: re-run scripts/distill-use.ts`);
      }
      const weights = Float32Array.from(vocabulary, ([, logProb]) => pieceWeight(logProb));
      loadMs = performance.now() - started;
      opts.log?.info({ model: DISTILLED_MODEL_ID, ms: Math.round(loadMs) }, 'embedding model loaded');
      return { table, weights, tokenize: createUseTokenizer(vocabulary) };
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  return {
    id: DISTILLED_MODEL_ID,
    dimensions: 512,
    async load() {
      await load();
      return loadMs;
    },
    loadedMs: () => (loadMs > 0 ? loadMs : null),
    async embed(texts, signal) {
      const model = await load();
      return texts.map((t, i) => {
        if (i % 256 === 0) signal?.throwIfAborted();
        return embedTokens(model, t);
      });
    },
  };
}
