import { STOP_WORDS, sifWeight, tokenizeWords } from '../text.ts';
import { l2normalize } from '../vector.ts';
import type { WordVectorTable } from './format.ts';
import { createWordLookup, type WordLookup } from './lookup.ts';

export type Weighting = 'sif' | 'mean';

/** A word-vector table with its word lookup, ready to average. */
export interface WordIndex {
  readonly table: WordVectorTable;
  readonly lookup: WordLookup;
  readonly weights: Float32Array;
}

export function indexWordVectors(table: WordVectorTable, weighting: Weighting = 'sif'): WordIndex {
  const n = table.count;
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) weights[i] = weighting === 'sif' ? sifWeight(i, n) : 1;
  return { table, lookup: createWordLookup(table), weights };
}

/** Rows of the words of `text` (hyphenated compounds missing from the vocabulary are split). */
export function lookupRows(index: WordIndex, text: string): { content: number[]; all: number[] } {
  const content: number[] = [];
  const all: number[] = [];
  const add = (word: string) => {
    const row = index.lookup.rowOf(word);
    if (row < 0) return false;
    all.push(row);
    if (!STOP_WORDS.has(word)) content.push(row);
    return true;
  };
  for (const token of tokenizeWords(text)) {
    if (add(token)) continue;
    if (/[-.']/.test(token)) for (const part of token.split(/[-.']/)) if (part) add(part);
  }
  return { content, all };
}

/**
 * The weighted average of the text's word vectors, L2-normalized. Stop words are left out unless the
 * text has nothing else; a text with no known word gets the zero vector.
 */
export function averageWordVectors(index: WordIndex, text: string): Float32Array {
  const { dims, scales, values } = index.table;
  const out = new Float32Array(dims);
  const { content, all } = lookupRows(index, text);
  const rows = content.length > 0 ? content : all;
  for (const row of rows) {
    const w = index.weights[row]! * scales[row]!;
    const base = row * dims;
    for (let d = 0; d < dims; d++) out[d]! += w * values[base + d]!;
  }
  return l2normalize(out);
}
