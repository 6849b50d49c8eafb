import type { WordVectorTable } from './format.ts';

/**
 * Word → row over a table's UTF-8 vocabulary, with no JS string or Map entry per word: an open-addressing
 * hash table (FNV-1a over the word's bytes, linear probing) in one Int32Array. For GloVe's 341k words it
 * builds in tens of ms, where a Map<string, number> took ~0.4 s of CPU and tens of MB of heap at every
 * start (issue 29). A word stored twice resolves to its last row, as a Map would.
 */
export interface WordLookup {
  /** The row of `word`, or -1. */
  rowOf(word: string): number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h >>> 0;
}

export function createWordLookup(table: Pick<WordVectorTable, 'count' | 'vocabulary' | 'starts'>): WordLookup {
  const { count, vocabulary, starts } = table;
  let size = 1;
  while (size < count * 2) size <<= 1;
  const mask = size - 1;
  // row + 1 per slot; 0 is an empty slot.
  const slots = new Int32Array(size);
  const sameWord = (row: number, bytes: Uint8Array, from: number, to: number): boolean => {
    const at = starts[row]!;
    const len = starts[row + 1]! - 1 - at;
    if (len !== to - from) return false;
    for (let i = 0; i < len; i++) if (vocabulary[at + i] !== bytes[from + i]) return false;
    return true;
  };
  for (let row = 0; row < count; row++) {
    const from = starts[row]!;
    const to = starts[row + 1]! - 1;
    let slot = hashBytes(vocabulary, from, to) & mask;
    for (;;) {
      const held = slots[slot]!;
      if (held === 0 || sameWord(held - 1, vocabulary, from, to)) break;
      slot = (slot + 1) & mask;
    }
    slots[slot] = row + 1;
  }
  const encoder = new TextEncoder();
  let scratch = new Uint8Array(64);
  return {
    rowOf(word) {
      if (count === 0) return -1;
      if (scratch.length < word.length * 3) scratch = new Uint8Array(word.length * 3);
      const n = encoder.encodeInto(word, scratch).written;
      let slot = hashBytes(scratch, 0, n) & mask;
      for (;;) {
        const held = slots[slot]!;
        if (held === 0) return -1;
        if (sameWord(held - 1, scratch, 0, n)) return held - 1;
        slot = (slot + 1) & mask;
      }
    },
  };
}
